//! Communication contexts: `shmem_ctx_create`, `_destroy`, `_get_team`,
//! and OpenSHMEM 1.6's sessions.
//!
//! The transport keeps no per-context queue (on shared memory every
//! operation completes before its call returns), so a context records its
//! options and team, and its `quiet`/`fence` are the transport's whole ones,
//! the default context's. `SHMEM_CTX_PRIVATE`,
//! `_SERIALIZED` and `_NOSTORE` are accepted and need no different code path
//! (they permit optimisations; none would make a store faster than a store).

use super::check;
use super::constants::{SHMEM_CTX_NOSTORE, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_SESSION_TOTAL_OPS};
use super::handle::{CtxHandle, TeamHandle};
use crate::error::{self, Error, ErrorKind, fatal};
use crate::runtime;
use crate::transport::Transport;
use core::ffi::{c_int, c_long, c_void};

const KNOWN_OPTIONS: i64 = SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE;

/// Returns 0 and the new context, or non-zero (and `SHMEM_CTX_INVALID`) when no
/// more contexts can be created.
pub(crate) fn create(routine: &'static str, options: c_long, ctx: *mut CtxHandle) -> c_int {
    runtime::get(routine);
    create_on(routine, crate::team::WORLD, 0, options, ctx)
}

/// `shmem_team_create_ctx`: a context whose PE numbers are ranks of `team`.
/// Non-zero (and `SHMEM_CTX_INVALID`) for an invalid or destroyed team.
pub(crate) fn team_create(routine: &'static str, team: TeamHandle, options: c_long, ctx: *mut CtxHandle) -> c_int {
    runtime::get(routine);
    if ctx.is_null() {
        check::null_pointer(routine, "ctx");
    }
    if crate::runtime::get(routine).teams.lookup(team.raw()).is_none() {
        error::debug(
            routine,
            format_args!(
                "{} = {:#x} is not a valid team",
                check::label(routine, "team"),
                team.raw()
            ),
        );
        // SAFETY: a non-null out-pointer supplied by the caller.
        unsafe { ctx.write(CtxHandle::INVALID) };
        return 1;
    }
    create_on(routine, team.raw(), 0, options, ctx)
}

/// Creates a context on raw team `team`, bound to space `space` (or 0), from
/// the arguments `options` and `ctx` of `routine`.
pub(crate) fn create_on(
    routine: &'static str,
    team: usize,
    space: usize,
    options: c_long,
    ctx: *mut CtxHandle,
) -> c_int {
    if ctx.is_null() {
        check::null_pointer(routine, "ctx");
    }
    if options & !KNOWN_OPTIONS != 0 {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "options",
                value: format!("{options:#x}"),
                why: "has bits other than SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED and SHMEM_CTX_NOSTORE",
            },
        ))
    }
    let rt = runtime::get(routine);
    let (result, code) = match rt.contexts.create(options, team, space) {
        Some(addr) => (CtxHandle(addr as *const c_void), 0),
        None => {
            error::debug(
                routine,
                format_args!(
                    "{} contexts exist, the most a PE may have at once",
                    crate::context::MAX_CONTEXTS
                ),
            );
            (CtxHandle::INVALID, 1)
        }
    };
    // SAFETY: a non-null out-pointer supplied by the caller.
    unsafe { ctx.write(result) };
    code
}

/// Destroys a created context after completing its operations.
/// `SHMEM_CTX_INVALID` is ignored, as the specification says.
pub(crate) fn destroy(routine: &'static str, ctx: CtxHandle) {
    let rt = runtime::get(routine);
    if ctx == CtxHandle::INVALID {
        return;
    }
    if ctx == CtxHandle::DEFAULT {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidArgument {
                name: "ctx",
                value: "SHMEM_CTX_DEFAULT".into(),
                why: "the default context cannot be destroyed",
            },
        ))
    }
    rt.transport.quiet();
    let obj = ctx.object(&rt.contexts);
    if let Some(o) = obj {
        check::private_owner(routine, ctx, o);
    }
    let space = obj.map_or(0, |o| o.space());
    if !rt.contexts.destroy(ctx.0 as usize) {
        fatal(&Error::new(
            routine,
            ErrorKind::InvalidContext {
                name: "ctx",
                addr: ctx.0 as usize,
            },
        ))
    }
    if let Ok(s) = crate::runtime::get(routine).spaces.lookup(space) {
        s.close_context();
    }
}

/// `shmemx_register_gettid`'s argument: the program's thread-id function, or NULL.
pub(crate) type GettidFn = Option<unsafe extern "C" fn() -> u64>;

/// `shmemx_register_gettid` (Sandia OpenSHMEM's): from now on, thread ids
/// are what `gettid_fn` answers (NULL: the kernel's); they name the thread a
/// `SHMEM_CTX_PRIVATE` context belongs to, in the warning for its use by
/// another thread (`shmem_ctx_destroy` always, other routines with
/// `SHMEM_DEBUG`). May be called before `shmem_init`, as SOS allows.
pub(crate) fn register_gettid(_routine: &'static str, gettid_fn: GettidFn) {
    crate::context::register_gettid(gettid_fn);
}

/// The team a context was created on: the world team for the default context
/// and for contexts made by `shmem_ctx_create`. Returns non-zero (and
/// `SHMEM_TEAM_INVALID`) for an invalid context, or one whose team has been
/// destroyed.
pub(crate) fn get_team(routine: &'static str, ctx: CtxHandle, team: *mut TeamHandle) -> c_int {
    let rt = runtime::get(routine);
    if team.is_null() {
        check::null_pointer(routine, "team");
    }
    let live = ctx
        .object(&rt.contexts)
        .map(|o| o.team())
        .filter(|&t| crate::runtime::get(routine).teams.lookup(t).is_some());
    let (result, code) = if let Some(t) = live {
        (TeamHandle::from_raw(t), 0)
    } else {
        error::debug(routine, format_args!("{:p} is not a valid context", ctx.0));
        (TeamHandle(std::ptr::null()), 1)
    };
    // SAFETY: a non-null out-pointer supplied by the caller.
    unsafe { team.write(result) };
    code
}

/// `shmem_ctx_session_config_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SessionConfig {
    pub total_ops: usize,
}

/// `shmem_ctx_session_start`: a session's options and configuration are
/// hints (OpenSHMEM 1.6), and rshmem takes none of them: on one node every
/// operation is done before its call returns, so there is nothing to batch;
/// across nodes each operation is an MPI call and its flush (see
/// docs/compatibility.md). The arguments are still checked: a context that
/// is not one, and a NULL `config` whose `total_ops` the mask asks to read.
pub(crate) fn session_start(
    routine: &'static str,
    ctx: CtxHandle,
    _options: c_long,
    config: *const SessionConfig,
    config_mask: c_long,
) {
    let rt = runtime::get(routine);
    if ctx == CtxHandle::INVALID {
        return;
    }
    check::ctx(rt, routine, ctx);
    if config_mask & SHMEM_CTX_SESSION_TOTAL_OPS != 0 && config.is_null() {
        check::null_pointer(routine, "config");
    }
}

/// `shmem_ctx_session_stop`: ends the session (nothing to flush, see
/// [`session_start`]); a second call has no effect.
pub(crate) fn session_stop(routine: &'static str, ctx: CtxHandle) {
    let rt = runtime::get(routine);
    if ctx != CtxHandle::INVALID {
        check::ctx(rt, routine, ctx);
    }
}
