//! `SHMEM_CHECK_BOUNDS`: a transfer must stay inside the object its address
//! points into, where the library knows that object: a block of the
//! symmetric heap (its start and the size the program asked for, from the
//! allocator) or a global variable of the program (its address and size,
//! from the executable's symbol table, read when first needed). Both sides
//! of a transfer are checked: the symmetric one, and the caller's own buffer
//! when it is itself symmetric. An address in neither (a space's memory, a
//! global the symbol table does not describe, private memory) is left to the
//! other checks.

use crate::error::params::label;
use crate::error::{Error, ErrorKind, fatal};
use crate::runtime::Runtime;
use crate::stuck::symbols::Symbols;
use std::path::Path;
use std::sync::OnceLock;

/// An object of the program: what it is, its address and size.
struct Object {
    what: What,
    start: usize,
    size: usize,
}

/// What an object is; named only in a message (no formatting on the way).
enum What {
    HeapBlock,
    Global(&'static str),
}

impl Object {
    /// How messages name it.
    fn name(&self) -> String {
        match self.what {
            What::HeapBlock => format!("the symmetric heap block at {:#x}", self.start),
            What::Global(name) => format!("the global '{name}'"),
        }
    }
}

/// The object that contains `addr`, if the library knows it.
fn object_at(rt: &Runtime, addr: usize) -> Option<Object> {
    if rt.in_heap(addr) {
        let (start, size) = crate::memory::object_at(rt, addr)?;
        return Some(Object {
            what: What::HeapBlock,
            start,
            size,
        });
    }
    let data = rt.globals()?;
    if !(data.start..data.start + data.len).contains(&addr) {
        return None;
    }
    let (symbols, bias) = program_symbols()?;
    let (name, start, size) = symbols.object(addr.checked_sub(*bias)? as u64)?;
    Some(Object {
        what: What::Global(name),
        start: start as usize + bias,
        size: size as usize,
    })
}

/// The program's symbols and how far it is loaded from their addresses.
fn program_symbols() -> Option<&'static (Symbols, usize)> {
    static SYMBOLS: OnceLock<Option<(Symbols, usize)>> = OnceLock::new();
    SYMBOLS
        .get_or_init(|| {
            let symbols = Symbols::load(Path::new("/proc/self/exe"))?;
            Some((symbols, crate::heap::globals::load_bias()))
        })
        .as_ref()
}

/// Fails unless the `len` bytes at `addr` (argument `name`) stay inside the
/// object that contains `addr`, when the library knows it; `count` is the
/// argument that sets the length, and its value, for the message.
pub(crate) fn within(
    rt: &Runtime,
    routine: &'static str,
    name: &'static str,
    addr: usize,
    len: usize,
    count: (&'static str, usize),
) {
    let Some(o) = object_at(rt, addr) else { return };
    let (end, limit) = (addr.saturating_add(len), o.start + o.size);
    if end > limit {
        overrun(routine, name, addr, len, count, &o, end - limit)
    }
}

#[cold]
fn overrun(
    routine: &'static str,
    name: &'static str,
    addr: usize,
    len: usize,
    count: (&'static str, usize),
    o: &Object,
    over: usize,
) -> ! {
    let at = match addr - o.start {
        0 => "is the start of".to_string(),
        k => format!("is {k} bytes into"),
    };
    fatal(&Error::new(
        routine,
        ErrorKind::Usage(format!(
            "{} = {addr:#x} {at} {} ({} bytes): the transfer of {len} bytes ({} = {}) runs {over} bytes past its end",
            label(routine, name),
            o.name(),
            o.size,
            label(routine, count.0),
            count.1,
        )),
    ))
}
