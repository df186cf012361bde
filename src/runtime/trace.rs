//! `SHMEM_TRACE` is written by a separate layer, `librshmem_trace.so`, which
//! `oshrun` preloads (see `trace/`); the library itself records nothing, so
//! tracing costs nothing when it is off. At `shmem_init` PE 0 only checks
//! that the layer saw the call, and says so once when `SHMEM_TRACE` is set
//! but the calls bypass it (a program run without `oshrun`, or linked
//! statically, whose calls never reach a preloaded library).

use std::ffi::CStr;

/// The layer's answer to "did `shmem_init` go through you?".
const ACTIVE: &CStr = c"rshmem_trace_layer_active";

/// The warning for a job with `SHMEM_TRACE=file` whose calls bypass the
/// trace layer, or `None` when they go through it.
pub(super) fn untraced_warning(file: &str) -> Option<String> {
    if layer_active() {
        return None;
    }
    Some(format!(
        "rshmem: SHMEM_TRACE={file} is set, but this program's calls do not go through the trace layer, so no \
         trace is written: run it under oshrun, or with LD_PRELOAD={}; a program linked statically \
         (RSHMEM_STATIC=1) cannot be traced",
        layer_path()
    ))
}

fn layer_active() -> bool {
    // SAFETY: dlsym with a NUL-terminated name; RTLD_DEFAULT searches the
    // whole process.
    let f = unsafe { libc::dlsym(libc::RTLD_DEFAULT, ACTIVE.as_ptr()) };
    if f.is_null() {
        return false;
    }
    // SAFETY: the layer defines `int rshmem_trace_layer_active(void)`.
    let f = unsafe { std::mem::transmute::<*mut libc::c_void, extern "C" fn() -> libc::c_int>(f) };
    f() != 0
}

/// `librshmem_trace.so` beside this library, if the library is a shared
/// object with a path; else a placeholder naming the directory.
fn layer_path() -> String {
    // SAFETY: Dl_info is plain data; zeroed is a valid out-parameter.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr reads the address of a function of this library.
    let found = unsafe { libc::dladdr(layer_path as *const libc::c_void, &mut info) } != 0;
    let file = (found && !info.dli_fname.is_null())
        // SAFETY: dladdr's file name is a NUL-terminated string owned by the loader.
        .then(|| unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned())
        .filter(|f| f.ends_with(".so"));
    match file.as_deref().and_then(|f| std::path::Path::new(f).parent()) {
        Some(dir) => dir.join("librshmem_trace.so").display().to_string(),
        None => "<rshmem lib directory>/librshmem_trace.so".into(),
    }
}
