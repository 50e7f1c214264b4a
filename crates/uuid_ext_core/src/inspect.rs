//! Every field of a UUID, by name, for people reading one (docs/reference.md#reading
//! `uuid_inspect`). Fields a version does not have are `None`.

use crate::layout::{self, Variant};
use crate::{timestamp, Bytes};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fields {
    /// The version nibble, under the RFC 9562 variant only.
    pub version: Option<u8>,
    pub variant: Variant,
    /// The time as `uuid_extract_timestamp` reads it, in Unix microseconds.
    pub unix_us: Option<i64>,
    /// The time to every digit the UUID holds, in Unix nanoseconds: v1 and
    /// v6 to 100 ns; v7 the millisecond plus `rand_a` read as 1/4096 ms
    /// (RFC 9562 §6.2 Method 3), cut to the nanosecond.
    pub unix_ns: Option<i128>,
    /// v7: the 12 bits after the version (here, the sub-millisecond fraction).
    pub rand_a: Option<u16>,
    /// v1 and v6: the 14-bit clock sequence.
    pub clock_seq: Option<u16>,
    /// v1 and v6: the 48-bit node.
    pub node: Option<[u8; 6]>,
    pub is_nil: bool,
    pub is_max: bool,
}

pub fn inspect(b: &Bytes) -> Fields {
    let version = layout::version(b);
    let v = u128::from_be_bytes(*b);
    let rand_a = (version == Some(7)).then_some(((v >> 64) & 0xfff) as u16);
    let clock_seq_and_node = matches!(version, Some(1 | 6));
    let node = clock_seq_and_node.then(|| {
        let mut n = [0u8; 6];
        n.copy_from_slice(&b[10..]);
        n
    });
    Fields {
        version,
        variant: layout::variant(b),
        unix_us: timestamp::unix_us(b),
        unix_ns: timestamp::unix_ns(b),
        rand_a,
        clock_seq: clock_seq_and_node.then_some(((v >> 48) & 0x3fff) as u16),
        node,
        is_nil: *b == layout::NIL,
        is_max: *b == layout::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_v7() {
        let f = inspect(&0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F_u128.to_be_bytes());
        assert_eq!(f.version, Some(7));
        assert_eq!(f.variant, Variant::Rfc9562);
        assert_eq!(f.unix_us, Some(1_645_557_742_000_000));
        assert_eq!(f.rand_a, Some(0xCC3));
        // 0xCC3 / 4096 ms = 797.607421875 µs
        assert_eq!(f.unix_ns, Some(1_645_557_742_000_797_607));
        assert_eq!((f.clock_seq, f.node), (None, None));
        assert!(!f.is_nil && !f.is_max);
    }

    #[test]
    fn rfc_v1_and_v6() {
        for u in [
            0xC232AB00_9414_11EC_B3C8_9F6BDECED846_u128,
            0x1EC9414C_232A_6B00_B3C8_9F6BDECED846,
        ] {
            let f = inspect(&u.to_be_bytes());
            assert_eq!(f.unix_us, Some(1_645_557_742_000_000));
            assert_eq!(f.unix_ns, Some(1_645_557_742_000_000_000));
            assert_eq!(f.clock_seq, Some(0x33C8));
            assert_eq!(f.node, Some([0x9F, 0x6B, 0xDE, 0xCE, 0xD8, 0x46]));
            assert_eq!(f.rand_a, None);
        }
        // 100 ns precision survives in unix_ns, not in unix_us.
        let f = inspect(&0x1EC9414C_232A_6B0F_B3C8_9F6BDECED846_u128.to_be_bytes());
        assert_eq!(f.unix_ns, Some(1_645_557_742_000_001_500));
        assert_eq!(f.unix_us, Some(1_645_557_742_000_001));
    }

    #[test]
    fn nil_max_and_other_versions() {
        let nil = inspect(&layout::NIL);
        assert!(nil.is_nil && !nil.is_max);
        assert_eq!((nil.version, nil.variant), (None, Variant::Ncs));
        let max = inspect(&layout::MAX);
        assert!(max.is_max && !max.is_nil);
        assert_eq!((max.version, max.variant), (None, Variant::Future));
        let v4 = inspect(&0x919108f7_52d1_4320_9bac_f847db4148a8_u128.to_be_bytes());
        assert_eq!(v4.version, Some(4));
        assert_eq!(
            (v4.unix_us, v4.unix_ns, v4.rand_a, v4.clock_seq, v4.node),
            (None, None, None, None, None)
        );
        // Version 7's nibble under the Microsoft variant: no version, no fields.
        let ms = inspect(&0x017F22E2_79B0_7CC3_D8C4_DC0C0C07398F_u128.to_be_bytes());
        assert_eq!(
            (ms.version, ms.variant, ms.rand_a),
            (None, Variant::Microsoft, None)
        );
    }
}
