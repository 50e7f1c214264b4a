//! The data directory, as a backend sees it and as PostgreSQL's own
//! messages name the files in it, and the mode PostgreSQL gives the files
//! it makes there.

use std::ffi::{c_int, CStr, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use pgrx::pg_sys;

extern "C" {
    /// PostgreSQL's mode for the files it creates in the data directory
    /// (`common/file_perm.h`, which pgrx does not bind).
    static pg_file_create_mode: c_int;
}

/// The data directory (`.`, a backend's working directory, before it is known).
pub fn data_dir() -> PathBuf {
    // SAFETY: DataDir is set before shared_preload_libraries are loaded and
    // never changes; a backend's working directory is the same directory.
    let dir = unsafe { pg_sys::DataDir };
    if dir.is_null() {
        return PathBuf::from(".");
    }
    // SAFETY: a NUL-terminated string owned by PostgreSQL for the process's life.
    let bytes = unsafe { CStr::from_ptr(dir) }.to_bytes();
    // Its bytes as they are: a path need not be UTF-8.
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// The mode PostgreSQL creates its files in the data directory with, as its
/// own `postmaster.pid`: 0600, or 0640 where the cluster allows group
/// access (`initdb -g`, a data directory of mode 0750).
pub fn file_create_mode() -> u32 {
    // SAFETY: a plain int the postmaster sets from the data directory's mode
    // (checkDataDir) before shared_preload_libraries are loaded, and never
    // changes after; every server process inherits it.
    let mode = unsafe { pg_file_create_mode };
    mode as u32
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
