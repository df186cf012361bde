//! The element types of the typed API, as Rust sees them.
//!
//! The generated exports instantiate the generic shims in `ffi/` with these
//! types. Capabilities are expressed by traits, not by runtime type checks:
//! every RMA type is [`ShmemType`]; the point-to-point synchronisation types are
//! also [`WaitWord`] (loadable atomically, compared with their own signedness).

use std::sync::atomic::{
    AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU16, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

/// C `long double`: 16 bytes on x86-64 (80-bit x87 plus padding) and on AArch64
/// (IEEE binary128). Rust has no such float, so RMA moves it as bytes and the
/// by-value routines (`shmem_longdouble_p`, `_g`) are written in assembly
/// (`ffi/longdouble.rs`).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LongDouble(pub [u8; 16]);

/// An element type of the RMA routines: plain data copied bit for bit.
pub(crate) trait ShmemType: Copy + 'static {}

macro_rules! shmem_types {
    ($($t:ty),*) => { $(impl ShmemType for $t {})* };
}
shmem_types!(
    f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, isize, usize, [u64; 2], LongDouble, ComplexF, ComplexD
);

/// C `float _Complex`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ComplexF {
    pub re: f32,
    pub im: f32,
}

/// C `double _Complex`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ComplexD {
    pub re: f64,
    pub im: f64,
}

/// A reduction operator over `T`, combining two operands in the given order.
pub(crate) trait Combine<T>: 'static {
    fn combine(a: T, b: T) -> T;
}

/// Types of the bitwise reductions.
pub(crate) trait Bitwise: Copy {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
}

/// Types of `max` and `min` reductions: compared as C compares them.
pub(crate) trait Ordered: Copy {
    /// `self > o` in C.
    fn greater(self, o: Self) -> bool;
}

/// Types of `sum` and `prod` reductions (integers wrap).
pub(crate) trait Arith: Copy {
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

pub(crate) struct OpAnd;
pub(crate) struct OpOr;
pub(crate) struct OpXor;
pub(crate) struct OpMax;
pub(crate) struct OpMin;
pub(crate) struct OpSum;
pub(crate) struct OpProd;

impl<T: Bitwise> Combine<T> for OpAnd {
    fn combine(a: T, b: T) -> T {
        a.and(b)
    }
}
impl<T: Bitwise> Combine<T> for OpOr {
    fn combine(a: T, b: T) -> T {
        a.or(b)
    }
}
impl<T: Bitwise> Combine<T> for OpXor {
    fn combine(a: T, b: T) -> T {
        a.xor(b)
    }
}
impl<T: Ordered> Combine<T> for OpMax {
    fn combine(a: T, b: T) -> T {
        if b.greater(a) { b } else { a }
    }
}
impl<T: Ordered> Combine<T> for OpMin {
    fn combine(a: T, b: T) -> T {
        if a.greater(b) { b } else { a }
    }
}
impl<T: Arith> Combine<T> for OpSum {
    fn combine(a: T, b: T) -> T {
        a.add(b)
    }
}
impl<T: Arith> Combine<T> for OpProd {
    fn combine(a: T, b: T) -> T {
        a.mul(b)
    }
}

macro_rules! int_reduce {
    ($($t:ty),*) => {$(
        impl Bitwise for $t {
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
        }
        impl Ordered for $t {
            fn greater(self, o: Self) -> bool { self > o }
        }
        impl Arith for $t {
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
        }
    )*};
}
int_reduce!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);

macro_rules! float_reduce {
    ($($t:ty),*) => {$(
        impl Ordered for $t {
            fn greater(self, o: Self) -> bool { self > o }
        }
        impl Arith for $t {
            fn add(self, o: Self) -> Self { self + o }
            fn mul(self, o: Self) -> Self { self * o }
        }
    )*};
}
float_reduce!(f32, f64);

macro_rules! complex_reduce {
    ($($t:ident),*) => {$(
        impl Arith for $t {
            fn add(self, o: Self) -> Self {
                $t { re: self.re + o.re, im: self.im + o.im }
            }
            // The textbook product, as C compilers emit for `_Complex` with
            // finite operands.
            fn mul(self, o: Self) -> Self {
                $t { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
            }
        }
    )*};
}
complex_reduce!(ComplexF, ComplexD);

impl Ordered for LongDouble {
    fn greater(self, o: Self) -> bool {
        longdouble::greater(&self, &o)
    }
}
impl Arith for LongDouble {
    fn add(self, o: Self) -> Self {
        longdouble::add(&self, &o)
    }
    fn mul(self, o: Self) -> Self {
        longdouble::mul(&self, &o)
    }
}

/// `long double` arithmetic, which Rust lacks: the x87 unit on x86-64, the
/// compiler runtime's binary128 routines on AArch64.
mod longdouble {
    use super::LongDouble;

    #[cfg(target_arch = "x86_64")]
    macro_rules! x87_binop {
        ($name:ident, $insn:literal) => {
            pub(crate) fn $name(a: &LongDouble, b: &LongDouble) -> LongDouble {
                let mut out = LongDouble([0; 16]);
                // SAFETY: loads two 80-bit values from valid references and stores
                // one into `out`; the x87 stack is left as found.
                unsafe {
                    core::arch::asm!(
                        "fld tbyte ptr [{a}]",
                        "fld tbyte ptr [{b}]",
                        $insn,
                        "fstp tbyte ptr [{out}]",
                        a = in(reg) a.0.as_ptr(),
                        b = in(reg) b.0.as_ptr(),
                        out = in(reg) out.0.as_mut_ptr(),
                        out("st(0)") _, out("st(1)") _,
                        options(nostack),
                    )
                };
                out
            }
        };
    }
    #[cfg(target_arch = "x86_64")]
    x87_binop!(add, "faddp st(1), st");
    #[cfg(target_arch = "x86_64")]
    x87_binop!(mul, "fmulp st(1), st");

    #[cfg(target_arch = "x86_64")]
    pub(super) fn greater(a: &LongDouble, b: &LongDouble) -> bool {
        let gt: u8;
        // SAFETY: loads two 80-bit values; the compare pops one and `fstp`
        // the other, leaving the x87 stack as found.
        unsafe {
            core::arch::asm!(
                "fld tbyte ptr [{b}]",
                "fld tbyte ptr [{a}]",
                "fucomip st, st(1)",
                "fstp st(0)",
                "seta {gt}",
                a = in(reg) a.0.as_ptr(),
                b = in(reg) b.0.as_ptr(),
                gt = out(reg_byte) gt,
                out("st(0)") _, out("st(1)") _,
                options(nostack),
            )
        };
        gt != 0
    }

    #[cfg(target_arch = "aarch64")]
    macro_rules! tf_call {
        ($name:ident, $func:literal) => {
            pub fn $name(a: &LongDouble, b: &LongDouble) -> LongDouble {
                let r: core::arch::aarch64::uint8x16_t;
                // SAFETY: calls the compiler runtime's binary128 routine with its
                // operands in q0 and q1; the result comes back in q0 (v0), and
                // clobber_abi covers everything the call may change.
                unsafe {
                    core::arch::asm!(
                        "ldr q0, [{a}]",
                        "ldr q1, [{b}]",
                        concat!("bl ", $func),
                        a = in(reg) a.0.as_ptr(),
                        b = in(reg) b.0.as_ptr(),
                        lateout("v0") r,
                        clobber_abi("C"),
                    )
                };
                // SAFETY: both are 16 plain bytes.
                LongDouble(unsafe { core::mem::transmute::<core::arch::aarch64::uint8x16_t, [u8; 16]>(r) })
            }
        };
    }
    #[cfg(target_arch = "aarch64")]
    tf_call!(add, "__addtf3");
    #[cfg(target_arch = "aarch64")]
    tf_call!(mul, "__multf3");

    #[cfg(target_arch = "aarch64")]
    pub fn greater(a: &LongDouble, b: &LongDouble) -> bool {
        let r: i64;
        // SAFETY: as above; __gttf2 returns a positive int when a > b.
        unsafe {
            core::arch::asm!(
                "ldr q0, [{a}]",
                "ldr q1, [{b}]",
                "bl __gttf2",
                a = in(reg) a.0.as_ptr(),
                b = in(reg) b.0.as_ptr(),
                lateout("x0") r,
                clobber_abi("C"),
            )
        };
        r as i32 > 0
    }
}

/// A type that `wait_until` and `test` can watch: loaded with acquire ordering
/// from memory other PEs write, and compared as the C type would be.
pub(crate) trait WaitWord: ShmemType + PartialOrd + std::fmt::Debug {
    /// Atomically loads `*p` with acquire ordering.
    ///
    /// # Safety
    /// `p` must be valid for reads and aligned for `Self`.
    unsafe fn load_acquire(p: *const Self) -> Self;

    /// True for the signed types.
    const SIGNED: bool;

    /// The value's bits, sign-extended to 64 (for the hang report).
    fn bits(self) -> u64;
}

macro_rules! wait_words {
    ($($t:ty => $a:ty),*) => {$(
        impl WaitWord for $t {
            #[inline]
            unsafe fn load_acquire(p: *const Self) -> Self {
                // SAFETY: the caller guarantees validity and alignment; the atomic
                // type has the same size and alignment as the integer.
                unsafe { <$a>::from_ptr(p as *mut _).load(Ordering::Acquire) as $t }
            }

            const SIGNED: bool = <$t>::MIN != 0;

            #[inline]
            fn bits(self) -> u64 {
                self as i64 as u64
            }
        }
    )*};
}
wait_words!(i16 => AtomicI16, u16 => AtomicU16, i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64,
            isize => AtomicI64, usize => AtomicU64);

/// An atomic memory operation on one word, with the previous value returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AmoOp<T> {
    Fetch,
    Set(T),
    Swap(T),
    /// Stores the second value if the word equals the first.
    CompareSwap(T, T),
    Add(T),
    And(T),
    Or(T),
    Xor(T),
}

impl<T> AmoOp<T> {
    /// Whether the operation may change the word (and so must wake waiters).
    pub(crate) fn writes(&self) -> bool {
        !matches!(self, AmoOp::Fetch)
    }

    /// The same operation on `f` of its operands (a type's bits, say).
    pub(crate) fn map<U>(self, f: impl Fn(T) -> U) -> AmoOp<U> {
        match self {
            AmoOp::Fetch => AmoOp::Fetch,
            AmoOp::Set(v) => AmoOp::Set(f(v)),
            AmoOp::Swap(v) => AmoOp::Swap(f(v)),
            AmoOp::CompareSwap(c, v) => AmoOp::CompareSwap(f(c), f(v)),
            AmoOp::Add(v) => AmoOp::Add(f(v)),
            AmoOp::And(v) => AmoOp::And(f(v)),
            AmoOp::Or(v) => AmoOp::Or(f(v)),
            AmoOp::Xor(v) => AmoOp::Xor(f(v)),
        }
    }
}

/// A type of the extended AMOs (fetch, set, swap): a 4- or 8-byte word that
/// the hardware updates atomically. Every operation is sequentially
/// consistent: a `lock`-prefixed instruction or `xchg` on x86-64, an
/// acquire-release LSE or LL/SC sequence on AArch64, so it is atomic with
/// respect to C11 atomics another process applies to the same word.
pub(crate) trait AtomicWord: ShmemType + PartialEq + std::fmt::Debug {
    /// Applies `op` to `*p` and returns the previous value. Arithmetic and
    /// bitwise operations are only applied to [`AtomicInt`] types (the shims'
    /// bounds ensure it).
    ///
    /// # Safety
    /// `p` must be valid and aligned for `Self`.
    unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self;
}

/// A type of the standard and bitwise AMOs: an integer with wrapping
/// arithmetic, also watched by the point-to-point routines.
pub(crate) trait AtomicInt: AtomicWord + WaitWord {
    const ONE: Self;
}

macro_rules! atomic_ints {
    ($($t:ty => $a:ty),*) => {$(
        impl AtomicWord for $t {
            #[inline]
            unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self {
                // SAFETY: the caller guarantees validity and alignment; the atomic
                // type has the size and alignment of the integer.
                let a = unsafe { <$a>::from_ptr(p as *mut _) };
                let sc = Ordering::SeqCst;
                (match op {
                    AmoOp::Fetch => a.load(sc),
                    AmoOp::Set(v) => { a.store(v as _, sc); 0 as _ }
                    AmoOp::Swap(v) => a.swap(v as _, sc),
                    AmoOp::CompareSwap(c, v) => match a.compare_exchange(c as _, v as _, sc, sc) {
                        Ok(old) | Err(old) => old,
                    },
                    AmoOp::Add(v) => a.fetch_add(v as _, sc),
                    AmoOp::And(v) => a.fetch_and(v as _, sc),
                    AmoOp::Or(v) => a.fetch_or(v as _, sc),
                    AmoOp::Xor(v) => a.fetch_xor(v as _, sc),
                }) as $t
            }
        }
        impl AtomicInt for $t {
            const ONE: Self = 1;
        }
    )*};
}
atomic_ints!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64, isize => AtomicIsize,
             usize => AtomicUsize);

macro_rules! atomic_floats {
    ($($t:ty => $a:ty),*) => {$(
        impl AtomicWord for $t {
            #[inline]
            unsafe fn apply(p: *mut Self, op: AmoOp<Self>) -> Self {
                // SAFETY: as for the integers; the float moves as its bits.
                let a = unsafe { <$a>::from_ptr(p as *mut _) };
                let sc = Ordering::SeqCst;
                <$t>::from_bits(match op {
                    AmoOp::Fetch => a.load(sc),
                    AmoOp::Set(v) => { a.store(v.to_bits(), sc); 0 }
                    AmoOp::Swap(v) => a.swap(v.to_bits(), sc),
                    other => unreachable!("{other:?} on a floating-point word"),
                })
            }
        }
    )*};
}
atomic_floats!(f32 => AtomicU32, f64 => AtomicU64);

/// The comparison operators of the point-to-point routines, with the values
/// `shmem.h` gives `SHMEM_CMP_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq = 1,
    Ne = 2,
    Gt = 3,
    Ge = 4,
    Lt = 5,
    Le = 6,
}

impl Cmp {
    /// Decodes a `SHMEM_CMP_*` value.
    pub(crate) fn from_c(v: i32) -> Option<Cmp> {
        Some(match v {
            1 => Cmp::Eq,
            2 => Cmp::Ne,
            3 => Cmp::Gt,
            4 => Cmp::Ge,
            5 => Cmp::Lt,
            6 => Cmp::Le,
            _ => return None,
        })
    }

    /// `lhs <op> rhs`, with the signedness of `T`.
    #[inline]
    pub(crate) fn holds<T: PartialOrd>(self, lhs: T, rhs: T) -> bool {
        match self {
            Cmp::Eq => lhs == rhs,
            Cmp::Ne => lhs != rhs,
            Cmp::Gt => lhs > rhs,
            Cmp::Ge => lhs >= rhs,
            Cmp::Lt => lhs < rhs,
            Cmp::Le => lhs <= rhs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_keep_signedness() {
        assert!(Cmp::Gt.holds(u32::MAX, 1u32));
        assert!(Cmp::Lt.holds(-1i32, 1i32));
        assert!(Cmp::Ge.holds(u64::MAX, u64::MAX - 1));
        assert!(!Cmp::Ne.holds(7i16, 7i16));
        for v in 1..=6 {
            assert_eq!(Cmp::from_c(v).map(|c| c as i32), Some(v));
        }
        assert_eq!(Cmp::from_c(0), None);
        assert_eq!(Cmp::from_c(7), None);
    }

    #[test]
    fn acquire_loads_read_the_value() {
        let x: u64 = 0xdead_beef_0000_0001;
        // SAFETY: &x is valid and aligned.
        assert_eq!(unsafe { u64::load_acquire(&x) }, x);
        let y: i16 = -3;
        // SAFETY: as above.
        assert_eq!(unsafe { i16::load_acquire(&y) }, -3);
        assert_eq!(std::mem::size_of::<LongDouble>(), 16);
    }

    #[test]
    fn atomic_operations_return_the_previous_value_and_wrap() {
        let mut x: i32 = i32::MAX;
        // SAFETY: &mut x is valid and aligned in every call below.
        unsafe {
            assert_eq!(i32::apply(&mut x, AmoOp::Add(1)), i32::MAX);
            assert_eq!(x, i32::MIN);
            assert_eq!(i32::apply(&mut x, AmoOp::CompareSwap(0, 5)), i32::MIN, "failed compare");
            assert_eq!(i32::apply(&mut x, AmoOp::CompareSwap(i32::MIN, 5)), i32::MIN);
            assert_eq!(i32::apply(&mut x, AmoOp::Fetch), 5);
        }
        let mut u: u64 = 0b1100;
        // SAFETY: as above.
        unsafe {
            assert_eq!(u64::apply(&mut u, AmoOp::And(0b0110)), 0b1100);
            assert_eq!(u64::apply(&mut u, AmoOp::Or(0b0001)), 0b0100);
            assert_eq!(u64::apply(&mut u, AmoOp::Xor(0b0101)), 0b0101);
            assert_eq!(u64::apply(&mut u, AmoOp::Swap(7)), 0);
            assert_eq!(u64::apply(&mut u, AmoOp::Set(9)), 0, "set returns nothing useful");
        }
        assert_eq!(u, 9);
        let mut f: f64 = 1.5;
        // SAFETY: as above.
        unsafe {
            assert_eq!(f64::apply(&mut f, AmoOp::Swap(-2.25)), 1.5);
            assert_eq!(f64::apply(&mut f, AmoOp::Fetch), -2.25);
        }
    }
}
