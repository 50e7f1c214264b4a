//! The generator core alone: what one UUIDv7 costs without PostgreSQL.
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use std::sync::atomic::AtomicU64;
use std::time::{SystemTime, UNIX_EPOCH};
use uuid_ext_core::{facade::Facade, rng::ForkSafeRng, sequencer::Session, v7};

fn clock_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn one_v7(c: &mut Criterion) {
    let word = AtomicU64::new(0);
    let mut session = Session::new();
    let mut rng = ForkSafeRng::new();
    c.bench_function("v7: clock + sequencer + random + layout", |b| {
        b.iter(|| {
            let w = session
                .next(&word, v7::candidate(clock_ns()), v7::MAX_WORD)
                .unwrap();
            black_box(v7::from_word(w, rng.next_u64(1).unwrap()))
        })
    });
    c.bench_function("clock alone (SystemTime::now)", |b| {
        b.iter(|| black_box(clock_ns()))
    });
    c.bench_function("random 64 bits (buffered ChaCha12)", |b| {
        b.iter(|| black_box(rng.next_u64(1).unwrap()))
    });
    c.bench_function("sequencer alone (process-local word)", |b| {
        let mut t = 0u64;
        b.iter(|| {
            t += 1;
            black_box(session.next(&word, t, v7::MAX_WORD).unwrap())
        })
    });
}

/// The façade without PostgreSQL: the FF1 rounds alone, each way, and the
/// AES-256 key schedule a backend pays once per key (docs/facade.md#speed).
fn facade(c: &mut Criterion) {
    let key = [0x42u8; 32];
    let f = Facade::new(&key);
    let id = v7::from_parts(1_764_000_000_000, 0x123, 4, 0x0123_4567_89ab_cdef);
    let face = f.to_facade(&id, b"").unwrap();
    c.bench_function("facade: v7 to face", |b| {
        b.iter(|| black_box(f.to_facade(black_box(&id), b"")))
    });
    c.bench_function("facade: face to v7", |b| {
        b.iter(|| black_box(f.to_v7(black_box(&face), b"")))
    });
    c.bench_function("facade: v7 to face, 16-byte context", |b| {
        b.iter(|| black_box(f.to_facade(black_box(&id), b"orders/v1/public")))
    });
    c.bench_function("facade: key schedule (Facade::new)", |b| {
        b.iter(|| black_box(Facade::new(black_box(&key))))
    });
}

criterion_group!(benches, one_v7, facade);
criterion_main!(benches);
