//! UUIDv4 (RFC 9562 §5.4): 122 random bits, version 4 and the variant
//! written over the other 6. The caller draws the random bytes.

use crate::{layout, Bytes};

pub const VERSION: u8 = 4;

/// 16 random bytes made a UUIDv4.
pub fn from_random(random: Bytes) -> Bytes {
    layout::set_version(random, VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9562_example() {
        // RFC 9562 Appendix A.3: its random bits already carry version and variant.
        let example = 0x919108f7_52d1_4320_9bac_f847db4148a8_u128.to_be_bytes();
        assert_eq!(from_random(example), example);
    }

    #[test]
    fn writes_only_the_six_fixed_bits() {
        let fixed: u128 = (0xf << 76) | (0b11 << 62);
        for random in [0_u128, u128::MAX, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210] {
            let got = u128::from_be_bytes(from_random(random.to_be_bytes()));
            assert_eq!(got & !fixed, random & !fixed);
            assert_eq!(layout::version(&got.to_be_bytes()), Some(VERSION));
        }
    }
}
