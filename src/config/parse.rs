//! The parsers of variables' values (sizes, counts, seconds), shared by the
//! rows' readers and the rest of the crate, and a byte count for people.

/// The granule sizes are rounded up to when memory is laid out (a segment's
/// parts start at multiples of it, `heap::SEGMENT_ALIGN`, checked equal in
/// `runtime`): every size must survive that rounding.
pub(crate) const SIZE_ALIGN: usize = 2 << 20;

/// Parses a size and checks it: at least `min`, and still representable
/// once rounded up to a multiple of `align` (a power of two).
pub(super) fn checked_size(text: &str, min: usize, align: usize) -> Result<usize, String> {
    let b = parse_size(text)?;
    if b < min {
        return Err(format!("must be at least {min} bytes"));
    }
    if b.checked_next_multiple_of(align).is_none() {
        return Err(format!(
            "too large: rounded up to a multiple of {} (as memory is laid out) it exceeds 2^64 - 1 bytes",
            human_bytes(align as u128)
        ));
    }
    Ok(b)
}

/// Parses a whole number from 0 to `max`.
pub(super) fn parse_count(text: &str, max: u64) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number".into());
    }
    match t.parse::<u64>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("too large: at most {max}")),
    }
}

/// Parses a size as the OpenSHMEM spec defines for `SHMEM_SYMMETRIC_SIZE`: a
/// non-negative decimal number, optionally with a fraction, followed by at most
/// one of k/K (2^10), m/M (2^20), g/G (2^30) or t/T (2^40). The result is rounded
/// up to a whole byte ("3.1M" is 3250586).
pub(crate) fn parse_size(s: &str) -> Result<usize, String> {
    const TOO_LARGE: &str = "too large: a size is at most 2^64 - 1 bytes";
    let t = s.trim();
    if t.is_empty() {
        return Err("empty size".into());
    }
    let (num, mult) = match t.chars().last() {
        Some(c) if c.is_ascii_alphabetic() => {
            let m: u64 = match c {
                'k' | 'K' => 1 << 10,
                'm' | 'M' => 1 << 20,
                'g' | 'G' => 1 << 30,
                't' | 'T' => 1 << 40,
                _ => return Err(format!("unknown size suffix '{c}' (use k, m, g or t)")),
            };
            (&t[..t.len() - 1], m)
        }
        _ => (t, 1),
    };
    if num.is_empty() {
        return Err("a suffix needs a number before it".into());
    }
    let mut parts = num.splitn(2, '.');
    let int_part = parts.next().unwrap_or("");
    let frac_part = parts.next();
    let digits_ok = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    if !digits_ok(int_part)
        || !frac_part.is_none_or(digits_ok)
        || (int_part.is_empty() && frac_part.is_none_or(str::is_empty))
    {
        return Err("expected a number such as 512M, 1.5G or 65536".into());
    }
    // Exact arithmetic: value = int * mult + ceil(0.frac * mult), in u128 with
    // every step checked.
    let int_digits = int_part.trim_start_matches('0');
    if int_digits.len() > 20 {
        return Err(TOO_LARGE.into());
    }
    let int: u128 = int_digits.parse::<u128>().unwrap_or(0);
    let mut total = int.checked_mul(mult as u128).ok_or(TOO_LARGE)?;
    if let Some(f) = frac_part.filter(|f| !f.is_empty()) {
        // 24 digits times 2^40 stays far below 2^128; a non-zero digit after
        // them can only push the ceiling up by one byte.
        let (head, tail) = f.split_at(f.len().min(24));
        let num: u128 = head.parse().map_err(|_| "bad fraction".to_string())?;
        let scaled = num * mult as u128;
        let den = 10u128.pow(head.len() as u32);
        let mut frac = scaled / den;
        if !scaled.is_multiple_of(den) || tail.bytes().any(|b| b != b'0') {
            frac += 1;
        }
        total = total.checked_add(frac).ok_or(TOO_LARGE)?;
    }
    usize::try_from(total).map_err(|_| TOO_LARGE.into())
}

/// Longest `SHMEM_NETWORK_TIMEOUT`: a day (the kernel counts it in
/// milliseconds in 32 bits).
const NETWORK_TIMEOUT_MAX: f64 = 86400.0;

/// `SHMEM_NETWORK_TIMEOUT`: 0 (no bound), or 1 to a day: the kernel's
/// keepalive probes that measure it go at most once a second.
pub(super) fn parse_network_timeout(s: &str) -> Result<f64, String> {
    let v = parse_seconds(s)?;
    if v != 0.0 && !(1.0..=NETWORK_TIMEOUT_MAX).contains(&v) {
        return Err(format!("expected 0 (no bound) or 1 to {NETWORK_TIMEOUT_MAX} seconds"));
    }
    Ok(v)
}

/// A number of seconds, 0 or more (fractions allowed).
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err("expected a non-negative number of seconds".into()),
    }
}

/// Formats a byte count for people ("512 MiB", "1.5 GiB").
pub(crate) fn human_bytes(n: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 || v.fract() == 0.0 {
        format!("{} {}", v as u128, UNITS[u])
    } else {
        format!("{:.1} {}", v, UNITS[u])
    }
}
