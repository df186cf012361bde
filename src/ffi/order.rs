//! Memory ordering and whole-job synchronisation.

use super::check;
use super::guard;
use super::handle::CtxHandle;
use crate::coll;
use crate::runtime;
use crate::transport::Transport;

#[unsafe(no_mangle)]
pub extern "C" fn shmem_fence() {
    guard("shmem_fence", || runtime::get("shmem_fence").transport.fence())
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_fence(ctx: CtxHandle) {
    guard("shmem_ctx_fence", || {
        let rt = runtime::get("shmem_ctx_fence");
        check::ctx("shmem_ctx_fence", ctx);
        rt.transport.fence()
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_quiet() {
    guard("shmem_quiet", || runtime::get("shmem_quiet").transport.quiet())
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_ctx_quiet(ctx: CtxHandle) {
    guard("shmem_ctx_quiet", || {
        let rt = runtime::get("shmem_ctx_quiet");
        check::ctx("shmem_ctx_quiet", ctx);
        rt.transport.quiet()
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_barrier_all() {
    guard("shmem_barrier_all", || {
        coll::barrier_all(runtime::get("shmem_barrier_all"))
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn shmem_sync_all() {
    guard("shmem_sync_all", || coll::sync_all(runtime::get("shmem_sync_all")))
}
