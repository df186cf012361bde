//! Argument positions for error messages, derived from the prototypes.
//!
//! `build.rs` writes every routine's parameter names from `ffi/table.rs` and
//! `ffi/protos.rs`; a check names the parameter and the message finds its
//! position here, so no shim writes a number that could disagree with the
//! prototype (a context form's arguments shift by one, for instance). It
//! belongs to the error messages, not to `ffi`, so that the modules below
//! `ffi` can report errors without depending on it.

include!(concat!(env!("OUT_DIR"), "/params.rs"));

/// 1-based position of parameter `name` in `routine`'s prototype (of the
/// parameter before the dot for a structure's field, `space_config.memkind`).
pub(crate) fn position(routine: &str, name: &str) -> Option<usize> {
    let param = name.split('.').next().unwrap_or(name);
    let i = PARAMS.binary_search_by(|(r, _)| (*r).cmp(routine)).ok()?;
    PARAMS[i].1.iter().position(|p| *p == param).map(|i| i + 1)
}

/// `argument #N 'name'`, as messages name an argument (without the number
/// for a name the prototype does not have, which would be a library bug
/// better shown than hidden).
pub(crate) fn label(routine: &str, name: &str) -> String {
    match position(routine, name) {
        Some(n) => format!("argument #{n} '{name}'"),
        None => {
            debug_assert!(false, "{routine} has no parameter '{name}'");
            format!("argument '{name}'")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_follow_the_prototypes() {
        assert_eq!(position("shmem_long_p", "pe"), Some(3));
        assert_eq!(position("shmem_ctx_long_p", "pe"), Some(4));
        assert_eq!(position("shmem_ctx_create", "ctx"), Some(2));
        assert_eq!(position("shmem_ctx_get_team", "team"), Some(2));
        assert_eq!(position("shmem_put64", "source"), Some(2));
        assert_eq!(position("shmem_longdouble_g", "pe"), Some(2));
        assert_eq!(position("shmem_long_put", "nope"), None);
        assert_eq!(position("no_such_routine", "pe"), None);
        assert_eq!(label("shmem_ctx_int_iput", "nelems"), "argument #6 'nelems'");
        assert_eq!(
            label("shmemx_space_create", "space_config.memkind"),
            "argument #1 'space_config.memkind'"
        );
        assert!(PARAMS.windows(2).all(|w| w[0].0 < w[1].0), "sorted, no duplicates");
    }

    /// One message per family, in the form without and with a context, as
    /// the shims report them (they name the argument; the position is the
    /// prototype's).
    #[test]
    fn one_message_per_family_in_both_forms() {
        use crate::error::ErrorKind;
        let pe = |r: &str| {
            ErrorKind::PeOutOfRange {
                name: "pe",
                pe: 9,
                npes: 2,
            }
            .text(r)
        };
        for (routine, n) in [
            ("shmem_long_put", 4),
            ("shmem_ctx_long_put", 5),
            ("shmem_putmem_nbi", 4),
            ("shmem_ctx_putmem_nbi", 5),
            ("shmem_int_get", 4),
            ("shmem_ctx_int_get", 5),
            ("shmem_long_p", 3),
            ("shmem_ctx_long_p", 4),
            ("shmem_double_g", 2),
            ("shmem_ctx_double_g", 3),
            ("shmem_int_iput", 6),
            ("shmem_ctx_int_iput", 7),
            ("shmem_iget64", 6),
            ("shmem_long_ibput", 7),
            ("shmem_ctx_long_ibget", 8),
            ("shmem_long_atomic_fetch_add", 3),
            ("shmem_ctx_long_atomic_fetch_add", 4),
            ("shmem_int_atomic_compare_swap_nbi", 5),
            ("shmem_ctx_int_atomic_compare_swap_nbi", 6),
            ("shmem_putmem_signal", 7),
            ("shmem_ctx_putmem_signal", 8),
            ("shmem_signal_add", 3),
            ("shmem_ctx_signal_add", 4),
            ("shmem_ptr", 2),
            ("shmemx_sem_postN", 3),
            ("shmemx_memput_signal", 6),
        ] {
            assert_eq!(
                pe(routine),
                format!("argument #{n} 'pe' is 9, outside [0, 1]"),
                "{routine}"
            );
        }
        let cmp = |r: &str| {
            ErrorKind::InvalidArgument {
                name: "cmp",
                value: "99".into(),
                why: "bad",
            }
            .text(r)
        };
        assert_eq!(cmp("shmem_long_wait_until"), "argument #2 'cmp' is 99: bad");
        assert_eq!(cmp("shmem_ushort_test_some"), "argument #5 'cmp' is 99: bad");
        assert_eq!(cmp("shmem_int_wait_until_all_vector"), "argument #4 'cmp' is 99: bad");
        assert_eq!(cmp("shmem_signal_wait_until"), "argument #2 'cmp' is 99: bad");
        let null = |r: &str, name: &'static str| {
            ErrorKind::InvalidArgument {
                name,
                value: "NULL".into(),
                why: "x",
            }
            .text(r)
        };
        assert_eq!(null("shmem_ctx_create", "ctx"), "argument #2 'ctx' is NULL: x");
        assert_eq!(null("shmem_team_create_ctx", "ctx"), "argument #3 'ctx' is NULL: x");
        assert_eq!(null("shmem_ctx_get_team", "team"), "argument #2 'team' is NULL: x");
        assert_eq!(
            null("shmem_team_get_config", "config"),
            "argument #3 'config' is NULL: x"
        );
        let team = |r: &str, name: &'static str| ErrorKind::InvalidTeam { name, raw: 0 }.text(r);
        assert_eq!(
            team("shmem_team_sync", "team"),
            "argument #1 'team' is SHMEM_TEAM_INVALID, not a team"
        );
        assert_eq!(
            team("shmem_long_sum_reduce", "team"),
            "argument #1 'team' is SHMEM_TEAM_INVALID, not a team"
        );
        assert_eq!(
            team("shmem_team_split_strided", "parent_team"),
            "argument #1 'parent_team' is SHMEM_TEAM_INVALID, not a team"
        );
        assert_eq!(label("shmem_team_split_strided", "size"), "argument #4 'size'");
        assert_eq!(label("shmem_long_alltoalls", "dst"), "argument #4 'dst'");
        assert_eq!(label("shmem_long_sum_to_all", "pSync"), "argument #8 'pSync'");
        let ctx = ErrorKind::InvalidContext { name: "ctx", addr: 0 }.text("shmem_ctx_int_put");
        assert_eq!(ctx, "argument #1 'ctx' is SHMEM_CTX_INVALID, not a context");
    }
}
