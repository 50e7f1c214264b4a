//! The sequencer alone (docs/benchmarks.md): one word in a shared mapping, as in
//! PostgreSQL's shared memory, against a process-local one; and the cost per
//! value with 1 to 16 threads on one word. The candidate is always below the
//! word, so every call takes the `last + 1` path: the most contended case.
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use uuid_ext_core::{sequencer::Session, v7};

/// An AtomicU64 in an anonymous MAP_SHARED page: what PostgreSQL's shared
/// memory is (it stays mapped for the life of the benchmark).
fn shared_mapping_word() -> &'static AtomicU64 {
    // SAFETY: a fresh anonymous mapping of one page, zero-filled, aligned,
    // never unmapped; an AtomicU64 of 0 is valid for all-zero bytes.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            4096,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        &*(p as *const AtomicU64)
    }
}

static LOCAL: AtomicU64 = AtomicU64::new(0);

fn word_location(c: &mut Criterion) {
    let mut g = c.benchmark_group("one thread");
    let shared = shared_mapping_word();
    let mut s = Session::new();
    g.bench_function("process-local word", |b| {
        b.iter(|| black_box(s.next(&LOCAL, 0, v7::MAX_WORD).unwrap()))
    });
    let mut s = Session::new();
    g.bench_function("shared-memory word", |b| {
        b.iter(|| black_box(s.next(shared, 0, v7::MAX_WORD).unwrap()))
    });
    g.finish();
}

fn threads_on_one_word(c: &mut Criterion) {
    let mut g = c.benchmark_group("threads on one shared word");
    g.measurement_time(Duration::from_secs(3));
    let word = shared_mapping_word();
    for threads in [1u64, 2, 4, 8, 16] {
        g.bench_with_input(
            BenchmarkId::from_parameter(threads),
            &threads,
            |b, &threads| {
                // Time per value made, all threads together.
                b.iter_custom(|iters| {
                    let per_thread = iters.div_ceil(threads);
                    let barrier = Arc::new(Barrier::new(threads as usize + 1));
                    let handles: Vec<_> = (0..threads)
                        .map(|_| {
                            let barrier = barrier.clone();
                            std::thread::spawn(move || {
                                let mut s = Session::new();
                                barrier.wait();
                                for _ in 0..per_thread {
                                    black_box(s.next(word, 0, v7::MAX_WORD).unwrap());
                                }
                            })
                        })
                        .collect();
                    barrier.wait();
                    let t0 = Instant::now();
                    for h in handles {
                        h.join().unwrap();
                    }
                    t0.elapsed()
                        .mul_f64(iters as f64 / (per_thread * threads) as f64)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, word_location, threads_on_one_word);
criterion_main!(benches);
