//! `shmem_longdouble_p`, `shmem_longdouble_g` and their context forms.
//!
//! C passes `long double` by value in places Rust cannot describe: on x86-64 the
//! argument travels in memory on the stack and the result returns in the x87
//! register `st(0)`; on AArch64 it is an IEEE binary128 in `q0`. These four
//! exports are therefore naked functions that move the value between that
//! location and a 16-byte buffer, and call an ordinary Rust function with a
//! pointer to the buffer. The routine id tells the helper which name to report.
//! Each export has a `pshmem_` twin (`naked_twins!`).

use super::handle::{CtxHandle, DEFAULT_CTX_OBJECT};
use super::{guard, rma};
use crate::types::LongDouble;
use core::ffi::c_int;

const NAMES: [&str; 2] = ["shmem_longdouble_p", "shmem_ctx_longdouble_p"];
const G_NAMES: [&str; 2] = ["shmem_longdouble_g", "shmem_ctx_longdouble_g"];

extern "C" fn put_helper(dest: *mut LongDouble, pe: c_int, value: *const LongDouble, ctx: CtxHandle, id: c_int) {
    let routine = NAMES[(id != 0) as usize];
    guard(routine, || {
        // SAFETY: `value` points at the caller's argument, copied or in place, 16 bytes.
        let v = unsafe { value.read() };
        rma::p(routine, ctx, dest, v, pe)
    })
}

extern "C" fn get_helper(out: *mut LongDouble, source: *const LongDouble, pe: c_int, ctx: CtxHandle, id: c_int) {
    let routine = G_NAMES[(id != 0) as usize];
    guard(routine, || {
        let v = rma::g(routine, ctx, source, pe);
        // SAFETY: `out` is the 16-byte, 16-aligned buffer in the naked caller's frame.
        unsafe { out.write(v) }
    })
}

/// Defines a naked export and its `pshmem_` twin with the same instructions
/// (the twin must not jump to the `shmem_` name, which a profiling tool may
/// have replaced).
macro_rules! naked_twins {
    ($name:ident, $pname:ident, $($asm:tt)*) => {
        // C exports (`no_mangle`), `pub` for the reader.
        #[allow(unreachable_pub)]
        #[unsafe(naked)]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() {
            naked_asm!($($asm)*)
        }

        #[allow(unreachable_pub)]
        #[unsafe(naked)]
        #[unsafe(no_mangle)]
        pub extern "C" fn $pname() {
            naked_asm!($($asm)*)
        }
    };
}

#[cfg(target_arch = "x86_64")]
mod arch {
    use super::*;
    use core::arch::naked_asm;

    // `void shmem_longdouble_p(long double *dest /*rdi*/, long double value /*[rsp+8]*/, int pe /*esi*/)`
    naked_twins!(shmem_longdouble_p, pshmem_longdouble_p,
            "lea rdx, [rsp + 8]",
            "lea rcx, [rip + {ctx}]",
            "xor r8d, r8d",
            "jmp {helper}",
            ctx = sym DEFAULT_CTX_OBJECT,
            helper = sym put_helper,
    );

    // `void shmem_ctx_longdouble_p(shmem_ctx_t ctx /*rdi*/, long double *dest /*rsi*/, long double value /*[rsp+8]*/, int pe /*edx*/)`
    naked_twins!(shmem_ctx_longdouble_p, pshmem_ctx_longdouble_p,
            "mov rcx, rdi",
            "mov rdi, rsi",
            "mov esi, edx",
            "lea rdx, [rsp + 8]",
            "mov r8d, 1",
            "jmp {helper}",
            helper = sym put_helper,
    );

    // `long double shmem_longdouble_g(const long double *source /*rdi*/, int pe /*esi*/)`, result in st(0)
    naked_twins!(shmem_longdouble_g, pshmem_longdouble_g,
            // Entry rsp is 8 mod 16: 24 bytes give a 16-aligned buffer at [rsp].
            "sub rsp, 24",
            "mov edx, esi",
            "mov rsi, rdi",
            "mov rdi, rsp",
            "lea rcx, [rip + {ctx}]",
            "xor r8d, r8d",
            "call {helper}",
            "fld tbyte ptr [rsp]",
            "add rsp, 24",
            "ret",
            ctx = sym DEFAULT_CTX_OBJECT,
            helper = sym get_helper,
    );

    // `long double shmem_ctx_longdouble_g(shmem_ctx_t ctx /*rdi*/, const long double *source /*rsi*/, int pe /*edx*/)`
    naked_twins!(shmem_ctx_longdouble_g, pshmem_ctx_longdouble_g,
            "sub rsp, 24",
            "mov rcx, rdi",
            "mov rdi, rsp",
            "mov r8d, 1",
            "call {helper}",
            "fld tbyte ptr [rsp]",
            "add rsp, 24",
            "ret",
            helper = sym get_helper,
    );
}

#[cfg(target_arch = "aarch64")]
mod arch {
    use super::*;
    use core::arch::naked_asm;

    // `void shmem_longdouble_p(long double *dest /*x0*/, long double value /*q0*/, int pe /*w1*/)`
    naked_twins!(shmem_longdouble_p, pshmem_longdouble_p,
            "stp x29, x30, [sp, #-32]!",
            "mov x29, sp",
            "str q0, [sp, #16]",
            "add x2, sp, #16",
            "adrp x3, {ctx}",
            "add x3, x3, :lo12:{ctx}",
            "mov w4, #0",
            "bl {helper}",
            "ldp x29, x30, [sp], #32",
            "ret",
            ctx = sym DEFAULT_CTX_OBJECT,
            helper = sym put_helper,
    );

    // `void shmem_ctx_longdouble_p(shmem_ctx_t ctx /*x0*/, long double *dest /*x1*/, long double value /*q0*/, int pe /*w2*/)`
    naked_twins!(shmem_ctx_longdouble_p, pshmem_ctx_longdouble_p,
            "stp x29, x30, [sp, #-32]!",
            "mov x29, sp",
            "str q0, [sp, #16]",
            "mov x3, x0",
            "mov x0, x1",
            "mov w1, w2",
            "add x2, sp, #16",
            "mov w4, #1",
            "bl {helper}",
            "ldp x29, x30, [sp], #32",
            "ret",
            helper = sym put_helper,
    );

    // `long double shmem_longdouble_g(const long double *source /*x0*/, int pe /*w1*/)`, result in q0
    naked_twins!(shmem_longdouble_g, pshmem_longdouble_g,
            "stp x29, x30, [sp, #-32]!",
            "mov x29, sp",
            "mov w2, w1",
            "mov x1, x0",
            "add x0, sp, #16",
            "adrp x3, {ctx}",
            "add x3, x3, :lo12:{ctx}",
            "mov w4, #0",
            "bl {helper}",
            "ldr q0, [sp, #16]",
            "ldp x29, x30, [sp], #32",
            "ret",
            ctx = sym DEFAULT_CTX_OBJECT,
            helper = sym get_helper,
    );

    // `long double shmem_ctx_longdouble_g(shmem_ctx_t ctx /*x0*/, const long double *source /*x1*/, int pe /*w2*/)`
    naked_twins!(shmem_ctx_longdouble_g, pshmem_ctx_longdouble_g,
            "stp x29, x30, [sp, #-32]!",
            "mov x29, sp",
            "mov x3, x0",
            "add x0, sp, #16",
            "mov w4, #1",
            "bl {helper}",
            "ldr q0, [sp, #16]",
            "ldp x29, x30, [sp], #32",
            "ret",
            helper = sym get_helper,
    );
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("rshmem supports x86-64 and AArch64: add the long double entry points for this target");
