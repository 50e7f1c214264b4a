//! The random generator (docs/design.md#randomness): ChaCha12 seeded from the operating
//! system, one per process, re-seeded whenever the process is not the one
//! that seeded it.
//!
//! PostgreSQL forks every backend from the postmaster, and a fork copies the
//! generator's state: without the check, two backends would draw the same
//! stream. The caller names the current process (the glue passes
//! PostgreSQL's `MyProcPid`, set after every fork, rather than paying for a
//! `getpid()` system call per UUID).
//!
//! ChaCha's block generator keeps 256 bytes of output buffered, so a draw is
//! a few nanoseconds; the OS is asked for a seed once per process.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;

/// The operating system could not give a seed.
#[derive(Debug)]
pub struct SeedError(pub String);

impl std::fmt::Display for SeedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "could not seed the random generator from the operating system: {}",
            self.0
        )
    }
}

#[cold]
fn missing() -> SeedError {
    SeedError("generator missing after seeding".into())
}

pub struct ForkSafeRng {
    rng: Option<ChaCha12Rng>,
    owner: i32,
}

impl Default for ForkSafeRng {
    fn default() -> Self {
        Self::new()
    }
}

impl ForkSafeRng {
    /// An unseeded generator: the first draw seeds it.
    pub const fn new() -> Self {
        ForkSafeRng {
            rng: None,
            owner: 0,
        }
    }

    /// Seeds from the operating system for process `owner`.
    pub fn seed(&mut self, owner: i32) -> Result<(), SeedError> {
        let rng = ChaCha12Rng::try_from_os_rng().map_err(|e| SeedError(e.to_string()))?;
        self.rng = Some(rng);
        self.owner = owner;
        Ok(())
    }

    /// The process this generator was seeded for, if it was.
    pub fn seeded_for(&self) -> Option<i32> {
        self.rng.as_ref().map(|_| self.owner)
    }

    #[inline]
    fn get(&mut self, owner: i32) -> Result<&mut ChaCha12Rng, SeedError> {
        if self.owner != owner || self.rng.is_none() {
            return self.reseed(owner);
        }
        self.rng.as_mut().ok_or_else(missing)
    }

    /// A process's first draw, and a forked one's: out of the way of every
    /// other draw.
    #[cold]
    #[inline(never)]
    fn reseed(&mut self, owner: i32) -> Result<&mut ChaCha12Rng, SeedError> {
        self.seed(owner)?;
        self.rng.as_mut().ok_or_else(missing)
    }

    /// 64 random bits for process `owner`.
    #[inline]
    pub fn next_u64(&mut self, owner: i32) -> Result<u64, SeedError> {
        Ok(self.get(owner)?.next_u64())
    }

    /// Fills `dest` with random bytes for process `owner`.
    pub fn fill(&mut self, owner: i32, dest: &mut [u8]) -> Result<(), SeedError> {
        self.get(owner)?.fill_bytes(dest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_on_first_draw_and_reseeds_for_another_owner() {
        let mut r = ForkSafeRng::new();
        assert_eq!(r.seeded_for(), None);
        let a = r.next_u64(10).unwrap();
        assert_eq!(r.seeded_for(), Some(10));
        let b = r.next_u64(10).unwrap();
        assert_ne!(a, b);
        r.next_u64(11).unwrap();
        assert_eq!(r.seeded_for(), Some(11));
    }

    #[test]
    fn two_generators_draw_different_streams() {
        let mut a = ForkSafeRng::new();
        let mut b = ForkSafeRng::new();
        let xs: Vec<u64> = (0..4).map(|_| a.next_u64(1).unwrap()).collect();
        let ys: Vec<u64> = (0..4).map(|_| b.next_u64(1).unwrap()).collect();
        assert_ne!(xs, ys);
    }
}
