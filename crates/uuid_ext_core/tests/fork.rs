//! A real `fork()`: the child inherits the parent's generator state, so the
//! stale stream repeats the parent's; naming the child's pid re-seeds it.
//! (Alone in its test binary: forking a process with other test threads
//! running is not something to do.)

use std::io::{Read, Write};
use std::os::fd::FromRawFd;
use uuid_ext_core::rng::ForkSafeRng;

fn fork_child(rng: &mut ForkSafeRng, parent: i32) -> (i32, std::fs::File) {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints for pipe() to fill.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: the child only draws random numbers (no allocation), writes to
    // a pipe and leaves with _exit, which is safe after fork.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() };
        let stale = rng.next_u64(parent).unwrap_or(0);
        let fresh = rng.next_u64(me).unwrap_or(0);
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&stale.to_le_bytes());
        out[8..].copy_from_slice(&fresh.to_le_bytes());
        // SAFETY: fds[1] is the pipe's write end, owned by this process.
        unsafe {
            libc::write(fds[1], out.as_ptr().cast(), 16);
            libc::_exit(0);
        }
    }
    // SAFETY: fds[1] is ours to close; fds[0] becomes owned by the File.
    unsafe { libc::close(fds[1]) };
    (pid, unsafe { std::fs::File::from_raw_fd(fds[0]) })
}

fn read_pair(mut f: std::fs::File, pid: i32) -> (u64, u64) {
    let mut buf = [0u8; 16];
    f.read_exact(&mut buf).expect("child wrote 16 bytes");
    let mut status = 0;
    // SAFETY: pid is our child; status is a valid out-pointer.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    let stale = u64::from_le_bytes(buf[..8].try_into().unwrap());
    let fresh = u64::from_le_bytes(buf[8..].try_into().unwrap());
    (stale, fresh)
}

#[test]
fn reseeds_after_fork() {
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    let mut rng = ForkSafeRng::new();
    rng.seed(parent).unwrap();
    rng.next_u64(parent).unwrap();

    let (pid1, pipe1) = fork_child(&mut rng, parent);
    let (pid2, pipe2) = fork_child(&mut rng, parent);
    let mine = rng.next_u64(parent).unwrap();
    let (stale1, fresh1) = read_pair(pipe1, pid1);
    let (stale2, fresh2) = read_pair(pipe2, pid2);

    // The hazard is real: a copied state draws the parent's next value.
    assert_eq!(stale1, mine);
    assert_eq!(stale2, mine);
    // Naming the new process re-seeds: every stream differs.
    assert_ne!(fresh1, mine);
    assert_ne!(fresh2, mine);
    assert_ne!(fresh1, fresh2);
    assert_eq!(rng.seeded_for(), Some(parent));
    std::io::stdout().flush().ok();
}
