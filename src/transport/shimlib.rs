//! Finding and loading the C shims of the remote engines
//! (`librshmem_mpi.so`, `librshmem_ucx.so`): librshmem links neither MPI nor
//! UCX, and dlopens a shim only in a job that needs it.
//!
//! A shim is looked for, in order, at
//! 1. the path in its environment variable (when set, nothing else is tried);
//! 2. its file name in the directory of the loaded `librshmem.so` (an
//!    installed library, or the build's profile directory), unless rshmem is
//!    linked into the executable;
//! 3. the path where `build.rs` put it (fixed at build time, absent when
//!    the build had no MPI, or no UCX).
//!
//! Shims are opened with `RTLD_GLOBAL` because Open MPI's plugins, which
//! the MPI shim dlopens in turn, look up libmpi's symbols globally; and
//! never closed: neither MPI nor UCX can be unloaded and restarted.

use std::ffi::{CStr, CString, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One shim: its file, the variable naming it, where the build put it.
pub(crate) struct Shimlib {
    pub file_name: &'static str,
    pub env: &'static str,
    /// The build's `RSHMEM_*_SHIM_BUILT`.
    pub built: Option<&'static str>,
    /// "MPI shim", "UCX shim".
    pub what: &'static str,
    /// Why it was not built, for a build without it ("rshmem was built
    /// without MPI (...)").
    pub not_built: &'static str,
    /// What to do then, before "or set `env` to ...".
    pub remedy: &'static str,
}

/// A place to look for a shim and why.
pub(crate) struct Candidate {
    pub path: PathBuf,
    pub why: &'static str,
}

impl Shimlib {
    /// Where to look, in order (see the module header).
    pub(crate) fn candidates(&self) -> Vec<Candidate> {
        if let Some(p) = std::env::var_os(self.env).filter(|p| !p.is_empty()) {
            return vec![Candidate {
                path: PathBuf::from(p),
                why: self.env,
            }];
        }
        let mut found = Vec::new();
        if let Some(dir) = library_dir() {
            found.push(Candidate {
                path: dir.join(self.file_name),
                why: "beside librshmem",
            });
        }
        if let Some(p) = self.built {
            found.push(Candidate {
                path: PathBuf::from(p),
                why: "where rshmem was built",
            });
        }
        found
    }

    /// The first candidate that `open` accepts, or what went wrong with each.
    pub(crate) fn open_first<S>(
        &self,
        candidates: &[Candidate],
        open: impl Fn(&Path) -> Result<S, String>,
    ) -> Result<S, String> {
        let mut tried = Vec::new();
        for c in candidates {
            if !c.path.exists() && c.why != self.env {
                tried.push(format!("{} ({}): no such file", c.path.display(), c.why));
                continue;
            }
            match open(&c.path) {
                Ok(shim) => return Ok(shim),
                Err(e) if c.why == self.env => {
                    return Err(format!("cannot load the {} named by {}: {e}", self.what, self.env));
                }
                Err(e) => tried.push(format!("{e} ({})", c.why)),
            }
        }
        if self.built.is_none() && candidates.iter().all(|c| !c.path.exists()) {
            return Err(format!(
                "{} and no {} was found{}{}: {}, or set {} to a {} built {}",
                self.not_built,
                self.file_name,
                if tried.is_empty() { "" } else { "; tried " },
                tried.join(", "),
                self.remedy,
                self.env,
                self.file_name,
                match self.what {
                    "MPI shim" => "with this MPI",
                    _ => "for this machine",
                }
            ));
        }
        Err(format!(
            "cannot load the {} {}: tried {}",
            self.what,
            self.file_name,
            tried.join("; ")
        ))
    }
}

/// The directory of the shared library this code is in; None when it is
/// linked into the executable.
pub(crate) fn library_dir() -> Option<PathBuf> {
    // SAFETY: an all-zero Dl_info (null pointers) is a valid value to be
    // overwritten by dladdr.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    let here = library_dir as fn() -> Option<PathBuf>;
    // SAFETY: dladdr only reads the address (one of our functions) and
    // writes info.
    let found = unsafe { libc::dladdr(here as *const c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr set dli_fname to the NUL-terminated name of the object,
    // which stays loaded (it holds this code).
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let file = Path::new(std::ffi::OsStr::from_bytes(name.to_bytes()))
        .canonicalize()
        .ok()?;
    let exe = std::env::current_exe().ok()?.canonicalize().ok()?;
    if file == exe {
        return None;
    }
    file.parent().map(Path::to_path_buf)
}

/// A loaded shim, never closed.
pub(crate) struct Loaded {
    handle: *mut c_void,
    path: PathBuf,
}

impl Loaded {
    /// dlopens `path` (`RTLD_NOW | RTLD_GLOBAL`).
    pub(crate) fn open(path: &Path) -> Result<Loaded, String> {
        let cpath = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| format!("{}: a NUL in the path", path.display()))?;
        // SAFETY: cpath is NUL-terminated. Loading runs the shim's and its
        // libraries' initialisers, which only set up their own state.
        let handle = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            return Err(format!("{}: {}", path.display(), dl_error()));
        }
        Ok(Loaded {
            handle,
            path: path.to_path_buf(),
        })
    }

    /// The address of the symbol `name`.
    pub(crate) fn sym(&self, name: &CStr) -> Result<*mut c_void, String> {
        // SAFETY: handle is a live handle from dlopen; name is NUL-terminated.
        let p = unsafe { libc::dlsym(self.handle, name.as_ptr()) };
        if p.is_null() {
            Err(format!("{}: no symbol {}", self.path.display(), name.to_string_lossy()))
        } else {
            Ok(p)
        }
    }
}

/// Resolves a symbol of a [`Loaded`] shim as a function of the given type:
/// `shim_fn!(loaded, c"name" as Type)`, with `?` on a missing symbol.
macro_rules! shim_fn {
    ($lib:expr, $name:literal as $ty:ty) => {{
        let p = $lib.sym($name)?;
        // SAFETY: the symbol is the shim's function of that name, whose C
        // prototype in its header is the type given here, and function and
        // data pointers have the same representation on the platforms
        // rshmem supports (POSIX requires it of dlsym).
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, $ty>(p) }
    }};
}
pub(crate) use shim_fn;

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message valid until
    // the next dl call of this thread; it is copied at once.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        return "unknown dlopen error".into();
    }
    // SAFETY: as above.
    unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
}
