//! `SHMEM_TRACE`: when the PEs' environment sets it, `oshrun` adds the trace
//! layer `librshmem_trace.so` to their `LD_PRELOAD`, after any the user
//! preloads, so that their `shmem_` calls go through it (see `trace/` and
//! docs/debugging.md). Without `SHMEM_TRACE`, nothing is added: the PEs run
//! the library alone.

use crate::wrapper;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The layer's file name, beside `librshmem.so`.
pub const LAYER: &str = "librshmem_trace.so";

/// The `LD_PRELOAD` to give the PEs, if they trace: `x_env` are the `-x`
/// settings (the last one of a name wins), `get` reads oshrun's own
/// environment (which the PEs inherit), `layer` finds the library.
pub fn preload(
    x_env: &[(OsString, OsString)],
    get: impl Fn(&str) -> Option<OsString>,
    layer: impl FnOnce() -> Result<PathBuf, String>,
) -> Result<Option<(OsString, OsString)>, String> {
    let pe_var = |name: &str| {
        x_env
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| get(name))
    };
    if pe_var("SHMEM_TRACE").is_none_or(|f| f.is_empty()) {
        return Ok(None);
    }
    let layer = layer()?;
    let mut value = pe_var("LD_PRELOAD").unwrap_or_default();
    if !value.is_empty() {
        value.push(":");
    }
    value.push(layer.as_os_str());
    Ok(Some(("LD_PRELOAD".into(), value)))
}

/// The layer for the oshrun at `exe`: in the build tree, the newer of
/// `target/<profile>/` and its `deps/` (`cargo test` refreshes only the
/// latter); installed, `PREFIX/lib/`.
pub fn layer_for(exe: &Path) -> Result<PathBuf, String> {
    let exe_dir = exe.parent().unwrap_or(Path::new("."));
    let exe_dir = exe_dir.canonicalize().unwrap_or_else(|_| exe_dir.to_path_buf());
    let dirs = if wrapper::in_build_tree(&exe_dir) {
        wrapper::build_lib_dirs(&exe_dir).to_vec()
    } else {
        vec![exe_dir.parent().unwrap_or(&exe_dir).join("lib")]
    };
    wrapper::newest_holding(&dirs, LAYER)
        .map(|d| d.join(LAYER))
        .ok_or_else(|| {
            format!(
                "SHMEM_TRACE is set but the trace layer is not found (looked for {}); no trace will be written",
                dirs.iter()
                    .map(|d| d.join(LAYER).display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// `env` with the `LD_PRELOAD` setting the job needs, if any; a note for
/// the user when tracing is asked for but the layer is missing.
pub fn job_env(env: &[(OsString, OsString)]) -> (Vec<(OsString, OsString)>, Option<String>) {
    let mut out = env.to_vec();
    let exe = std::env::current_exe().unwrap_or_default();
    match preload(env, |n| std::env::var_os(n), || layer_for(&exe)) {
        Ok(Some(kv)) => {
            out.push(kv);
            (out, None)
        }
        Ok(None) => (out, None),
        Err(why) => (out, Some(format!("oshrun: {why}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs.iter().map(|(k, v)| (k.into(), v.into())).collect()
    }

    fn layer() -> Result<PathBuf, String> {
        Ok(PathBuf::from("/p/lib/librshmem_trace.so"))
    }

    #[test]
    fn nothing_is_preloaded_without_shmem_trace() {
        let none = |_: &str| None;
        assert_eq!(preload(&[], none, layer), Ok(None));
        assert_eq!(preload(&os(&[("SHMEM_TRACE", "")]), none, layer), Ok(None));
        assert_eq!(preload(&os(&[("LD_PRELOAD", "x.so")]), none, layer), Ok(None));
        let missing = || Err("not found".to_string());
        assert_eq!(
            preload(&[], none, missing),
            Ok(None),
            "the layer is only looked for when tracing"
        );
    }

    #[test]
    fn shmem_trace_from_x_or_the_environment_preloads_the_layer() {
        let want = Some(("LD_PRELOAD".into(), "/p/lib/librshmem_trace.so".into()));
        assert_eq!(
            preload(&os(&[("SHMEM_TRACE", "t.json")]), |_| None, layer),
            Ok(want.clone())
        );
        let env = |n: &str| (n == "SHMEM_TRACE").then(|| OsString::from("t.json"));
        assert_eq!(preload(&[], env, layer), Ok(want));
        // The last -x wins, over the environment too.
        let off = os(&[("SHMEM_TRACE", "t.json"), ("SHMEM_TRACE", "")]);
        assert_eq!(preload(&off, env, layer), Ok(None));
    }

    #[test]
    fn the_layer_comes_after_the_users_preloads() {
        let x = os(&[("SHMEM_TRACE", "t.json"), ("LD_PRELOAD", "/a.so")]);
        let got = preload(&x, |_| Some("/ignored.so".into()), layer).unwrap().unwrap();
        assert_eq!(got.1, "/a.so:/p/lib/librshmem_trace.so");
        let env = |n: &str| Some(OsString::from(if n == "LD_PRELOAD" { "/b.so" } else { "t" }));
        assert_eq!(
            preload(&[], env, layer).unwrap().unwrap().1,
            "/b.so:/p/lib/librshmem_trace.so"
        );
        let missing = || Err("not found".to_string());
        assert_eq!(preload(&x, |_| None, missing), Err("not found".into()));
    }
}
