//! Atomic operations as words in a request: a kind, the operands as bits,
//! and the width (4 or 8 bytes). The target applies them to a `u32` or `u64`,
//! which gives every `AtomicWord` type's result: integer arithmetic wraps the
//! same bits whatever the signedness, and floats only fetch, set and swap.

use crate::types::AmoOp;

/// The bits of a 4- or 8-byte value, zero-extended.
pub(super) fn to_word<T: Copy>(v: T) -> u64 {
    match std::mem::size_of::<T>() {
        // SAFETY: T is 4 bytes, as many as u32 reads.
        4 => unsafe { std::mem::transmute_copy::<T, u32>(&v) as u64 },
        // SAFETY: T is 8 bytes, as many as u64 reads.
        8 => unsafe { std::mem::transmute_copy::<T, u64>(&v) },
        n => panic!("the checking transport has no {n}-byte atomic operations"),
    }
}

/// The value of type `T` (4 or 8 bytes) whose bits `to_word` gave.
pub(super) fn from_word<T: Copy>(w: u64) -> T {
    match std::mem::size_of::<T>() {
        // SAFETY: T is 4 bytes of plain data (an AtomicWord); any bits are a value.
        4 => unsafe { std::mem::transmute_copy::<u32, T>(&(w as u32)) },
        // SAFETY: as above, 8 bytes.
        8 => unsafe { std::mem::transmute_copy::<u64, T>(&w) },
        n => panic!("the checking transport has no {n}-byte atomic operations"),
    }
}

/// `(kind, a, b)` for a request's `amo`, `a` and `b` words.
pub(super) fn encode<T: Copy>(op: AmoOp<T>) -> (u64, u64, u64) {
    match op {
        AmoOp::Fetch => (0, 0, 0),
        AmoOp::Set(v) => (1, to_word(v), 0),
        AmoOp::Swap(v) => (2, to_word(v), 0),
        AmoOp::CompareSwap(c, v) => (3, to_word(c), to_word(v)),
        AmoOp::Add(v) => (4, to_word(v), 0),
        AmoOp::And(v) => (5, to_word(v), 0),
        AmoOp::Or(v) => (6, to_word(v), 0),
        AmoOp::Xor(v) => (7, to_word(v), 0),
    }
}

/// The operation `encode` gave, on words of type `W` (`u32` or `u64`).
pub(super) fn decode<W: Copy>(kind: u64, a: u64, b: u64) -> Option<AmoOp<W>> {
    let (a, b) = (from_word::<W>(a), from_word::<W>(b));
    Some(match kind {
        0 => AmoOp::Fetch,
        1 => AmoOp::Set(a),
        2 => AmoOp::Swap(a),
        3 => AmoOp::CompareSwap(a, b),
        4 => AmoOp::Add(a),
        5 => AmoOp::And(a),
        6 => AmoOp::Or(a),
        7 => AmoOp::Xor(a),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::AtomicWord;

    /// Applies `op` to `x` as the target would (on the unsigned word of its width).
    fn through_request<T: AtomicWord + Copy>(x: &mut T, op: AmoOp<T>) -> T {
        let (k, a, b) = encode(op);
        let old = match std::mem::size_of::<T>() {
            // SAFETY: x is a valid, aligned 4-byte word.
            4 => (unsafe { u32::apply(x as *mut T as *mut u32, decode(k, a, b).unwrap()) }) as u64,
            // SAFETY: as above, 8 bytes.
            _ => unsafe { u64::apply(x as *mut T as *mut u64, decode(k, a, b).unwrap()) },
        };
        from_word(old)
    }

    #[test]
    fn signed_and_float_operations_survive_the_trip() {
        let mut i = -5i32;
        assert_eq!(through_request(&mut i, AmoOp::Add(-3)), -5);
        assert_eq!(i, -8);
        assert_eq!(through_request(&mut i, AmoOp::CompareSwap(-8, i32::MIN)), -8);
        assert_eq!(i, i32::MIN);
        let mut l = i64::MAX;
        assert_eq!(through_request(&mut l, AmoOp::Add(1)), i64::MAX);
        assert_eq!(l, i64::MIN);
        let mut f = 1.5f32;
        assert_eq!(through_request(&mut f, AmoOp::Swap(-0.25)), 1.5);
        assert_eq!(through_request(&mut f, AmoOp::Fetch), -0.25);
        let mut d = 2.0f64;
        through_request(&mut d, AmoOp::Set(3.5));
        assert_eq!(d, 3.5);
        let mut u = 0b1100u64;
        assert_eq!(through_request(&mut u, AmoOp::Xor(0b0110)), 0b1100);
        assert_eq!(u, 0b1010);
        assert_eq!(decode::<u64>(8, 0, 0), None);
    }
}
