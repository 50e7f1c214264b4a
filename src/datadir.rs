//! The data directory, as a backend sees it and as PostgreSQL's own
//! messages name the files in it.

use std::ffi::CStr;
use std::path::PathBuf;

use pgrx::pg_sys;

/// The data directory (`.`, a backend's working directory, before it is known).
pub fn data_dir() -> PathBuf {
    // SAFETY: DataDir is set before shared_preload_libraries are loaded and
    // never changes; a backend's working directory is the same directory.
    let dir = unsafe { pg_sys::DataDir };
    if dir.is_null() {
        return PathBuf::from(".");
    }
    // SAFETY: a NUL-terminated string owned by PostgreSQL for the process's life.
    PathBuf::from(
        unsafe { CStr::from_ptr(dir) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// `path` relative to the data directory (a backend's working directory),
/// as PostgreSQL's own messages name files: `.` for the directory itself.
pub fn in_data_dir(path: &std::path::Path) -> PathBuf {
    match path.strip_prefix(data_dir()) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => path.to_path_buf(),
    }
}
