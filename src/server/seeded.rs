//! The embedded server's one deterministic RNG: the seeded demo rows (`store::seed_rng`), the
//! scripted chat stream's pauses and the fault plans' `probability` rules.
//!
//! It draws exactly what rand 0.8's `SmallRng` drew on 64-bit targets, so a fresh data
//! directory holds the same rows as before the rand 0.10 upgrade and a fault plan's `seed` fires
//! on the same requests: Xoshiro256++ (named, not `SmallRng`, which promises no algorithm),
//! seeded by PCG32 expansion of a `u64` (rand 0.9+ expands with SplitMix64), and rand 0.8's
//! `gen_range` (widening multiply with its conservative rejection zone; rand 0.9+ uses Canon's
//! method and samples `usize` as `u32`), `gen_bool` and `gen::<f64>`.

use rand::rngs::Xoshiro256PlusPlus;
use rand::{Rng, SeedableRng};
use std::ops::{Range, RangeInclusive};

/// The generator every seeded draw of the server uses.
#[derive(Debug, Clone)]
pub struct SeededRng(Xoshiro256PlusPlus);

/// A [`SeededRng`] from a `u64`, expanded as rand_core 0.6's default `seed_from_u64` (PCG32,
/// four bytes per step, little-endian).
pub fn seeded_rng(mut state: u64) -> SeededRng {
    const MUL: u64 = 6_364_136_223_846_793_005;
    const INC: u64 = 11_634_580_027_462_260_723;
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_exact_mut(4) {
        state = state.wrapping_mul(MUL).wrapping_add(INC);
        let xorshifted = (((state >> 18) ^ state) >> 27) as u32;
        let rot = (state >> 59) as u32;
        chunk.copy_from_slice(&xorshifted.rotate_right(rot).to_le_bytes());
    }
    SeededRng(Xoshiro256PlusPlus::from_seed(seed))
}

impl SeededRng {
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// rand 0.8's `gen_range` for `a..b` and `a..=b`. An empty range yields its start (rand
    /// panicked; every range the server draws from is non-empty).
    pub fn gen_range<T: SeedInt, R: SeedRange<T>>(&mut self, range: R) -> T {
        match range.inclusive() {
            Some((low, high)) => T::sample_inclusive(self, low, high),
            None => range.start(),
        }
    }

    /// rand 0.8's `gen_bool` (`Bernoulli`: one `u64` against `p · 2⁶⁴`); `p` outside `[0, 1)`
    /// is always true from 1 up and never true below 0.
    pub fn gen_bool(&mut self, p: f64) -> bool {
        if p >= 1.0 {
            return true;
        }
        let p_int = (p * 2.0 * (1u64 << 63) as f64) as u64;
        self.next_u64() < p_int
    }

    /// rand 0.8's `gen::<f64>()`: the top 53 bits of one `u64`, scaled into `[0, 1)`.
    pub fn gen_f64(&mut self) -> f64 {
        let scale = 1.0 / ((1u64 << 53) as f64);
        scale * (self.next_u64() >> 11) as f64
    }
}

/// An integer type [`SeededRng::gen_range`] draws, with rand 0.8's sampling width.
pub trait SeedInt: Copy {
    fn sample_inclusive(rng: &mut SeededRng, low: Self, high: Self) -> Self;
    /// `self - 1` (the inclusive end of `low..self`), `None` below the type's minimum.
    fn before(self) -> Option<Self>;
    fn le(self, other: Self) -> bool;
}

macro_rules! seed_int {
    ($ty:ty, $unsigned:ty, $large:ty, $wide:ty, $next:ident) => {
        impl SeedInt for $ty {
            fn sample_inclusive(rng: &mut SeededRng, low: Self, high: Self) -> Self {
                let range = high.wrapping_sub(low).wrapping_add(1) as $unsigned as $large;
                if range == 0 {
                    return rng.$next() as $ty;
                }
                let zone = (range << range.leading_zeros()).wrapping_sub(1);
                loop {
                    let v = rng.$next() as $large;
                    let m = (v as $wide) * (range as $wide);
                    let (hi, lo) = ((m >> <$large>::BITS) as $large, m as $large);
                    if lo <= zone {
                        return low.wrapping_add(hi as $ty);
                    }
                }
            }
            fn before(self) -> Option<Self> {
                self.checked_sub(1)
            }
            fn le(self, other: Self) -> bool {
                self <= other
            }
        }
    };
}

seed_int!(i32, u32, u32, u64, next_u32);
seed_int!(u32, u32, u32, u64, next_u32);
seed_int!(i64, u64, u64, u128, next_u64);
seed_int!(u64, u64, u64, u128, next_u64);
seed_int!(usize, usize, u64, u128, next_u64);

/// `a..b` or `a..=b` for [`SeededRng::gen_range`].
pub trait SeedRange<T: SeedInt> {
    fn start(&self) -> T;
    /// The inclusive bounds, `None` when the range is empty.
    fn inclusive(&self) -> Option<(T, T)>;
}

impl<T: SeedInt> SeedRange<T> for Range<T> {
    fn start(&self) -> T {
        self.start
    }
    fn inclusive(&self) -> Option<(T, T)> {
        let high = self.end.before()?;
        self.start.le(high).then_some((self.start, high))
    }
}

impl<T: SeedInt> SeedRange<T> for RangeInclusive<T> {
    fn start(&self) -> T {
        *RangeInclusive::start(self)
    }
    fn inclusive(&self) -> Option<(T, T)> {
        let (low, high) = (*RangeInclusive::start(self), *self.end());
        low.le(high).then_some((low, high))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below was drawn by rand 0.8.8's `SmallRng::seed_from_u64` on x86_64
    // before the upgrade, with the same calls.

    #[test]
    fn the_words_are_the_ones_rand_0_8_small_rng_drew() {
        let mut rng = seeded_rng(7);
        let words: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            words,
            [
                17_876_040_531_463_918_309,
                5_791_438_544_937_527_793,
                8_186_033_631_819_050_777
            ]
        );
        let mut rng = seeded_rng(7);
        let picks: Vec<u32> = (0..5).map(|_| rng.gen_range(0..1_000u32)).collect();
        assert_eq!(picks, [969, 313, 443, 258, 411]);
    }

    #[test]
    fn ranges_bools_and_floats_are_the_ones_rand_0_8_drew() {
        let mut rng = seeded_rng(11);
        let a: Vec<i64> = (0..6).map(|_| rng.gen_range(-2..40i64)).collect();
        let b: Vec<usize> = (0..6).map(|_| rng.gen_range(0..7usize)).collect();
        let c: Vec<i32> = (0..6).map(|_| rng.gen_range(300..5_000i32)).collect();
        let d: Vec<u64> = (0..6).map(|_| rng.gen_range(30..=80u64)).collect();
        let e: Vec<bool> = (0..8).map(|_| rng.gen_bool(0.3)).collect();
        let f: Vec<f64> = (0..2).map(|_| rng.gen_f64()).collect();
        assert_eq!(a, [2, 37, 2, 38, -2, 14]);
        assert_eq!(b, [0, 2, 0, 0, 2, 2]);
        assert_eq!(c, [4905, 3312, 2987, 1793, 4690, 2879]);
        assert_eq!(d, [47, 35, 80, 52, 47, 61]);
        assert_eq!(e, [false, false, false, false, false, false, true, false]);
        assert_eq!(f, [0.2909887352457444, 0.8798351820908985]);
    }

    #[test]
    fn an_empty_range_yields_its_start() {
        let mut rng = seeded_rng(1);
        assert_eq!(rng.gen_range(3..3usize), 3);
        let end = std::hint::black_box(4i64);
        assert_eq!(rng.gen_range(5..=end), 5);
    }
}
