//! A program's data symbols, from its ELF symbol table (or its dynamic one
//! when stripped): the hang report names a watched address with them
//! (`lookup`), and `SHMEM_CHECK_BOUNDS` finds the global variable a transfer
//! starts in, and its size (`ffi::bounds`).

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
use std::path::Path;

/// A program's data symbols, sorted by address (link-time addresses).
pub(crate) struct Symbols {
    /// Link-time address of the first loadable segment.
    pub first_load: u64,
    syms: Vec<Symbol>,
}

struct Symbol {
    addr: u64,
    size: u64,
    name: String,
    /// A thread-local variable: `addr` is an offset in the TLS block, not
    /// an address.
    tls: bool,
}

impl Symbols {
    /// The symbols of the ELF file at `path`, if it can be read.
    pub(crate) fn load(path: &Path) -> Option<Symbols> {
        let data = std::fs::read(path).ok()?;
        let file = object::File::parse(&*data).ok()?;
        let first_load = file.segments().map(|s| s.address()).min()?;
        let mut syms: Vec<Symbol> = file
            .symbols()
            .chain(file.dynamic_symbols())
            .filter(|s| matches!(s.kind(), SymbolKind::Data | SymbolKind::Tls | SymbolKind::Unknown))
            .filter(|s| s.address() != 0 && s.is_definition())
            .filter_map(|s| {
                Some(Symbol {
                    addr: s.address(),
                    size: s.size(),
                    name: s.name().ok()?.to_string(),
                    tls: s.kind() == SymbolKind::Tls,
                })
            })
            .filter(|s| !s.name.is_empty() && !s.name.starts_with('$'))
            .collect();
        syms.sort_by(|a, b| (a.addr, a.size, &a.name).cmp(&(b.addr, b.size, &b.name)));
        syms.dedup_by(|a, b| a.addr == b.addr && a.name == b.name);
        Some(Symbols { first_load, syms })
    }

    /// "flag", or "grid+24" inside an array.
    pub(crate) fn name(&self, vaddr: u64) -> Option<String> {
        let i = self.syms.partition_point(|s| s.addr <= vaddr).checked_sub(1)?;
        let s = &self.syms[i];
        let off = vaddr - s.addr;
        match off {
            0 => Some(s.name.clone()),
            _ if off < s.size.max(1) => Some(format!("{}+{off}", s.name)),
            _ => None,
        }
    }

    /// The variable (not thread-local, of known size) whose bytes include
    /// `vaddr`: its name, link-time address and size.
    pub(crate) fn object(&self, vaddr: u64) -> Option<(&str, u64, u64)> {
        let i = self.syms.partition_point(|s| s.addr <= vaddr);
        // Aliases share an address; a few candidates below `vaddr` suffice.
        self.syms[..i]
            .iter()
            .rev()
            .take(8)
            .find(|s| !s.tls && s.size > 0 && vaddr - s.addr < s.size)
            .map(|s| (s.name.as_str(), s.addr, s.size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static mut PROBE_ARRAY: [u64; 16] = [7; 16];

    #[test]
    fn the_test_binary_names_its_own_statics_and_their_sizes() {
        let me = Symbols::load(Path::new("/proc/self/exe")).expect("the test binary has symbols");
        let bias = crate::heap::globals::load_bias() as u64;
        let addr = std::ptr::addr_of!(PROBE_ARRAY) as u64 - bias;
        let (name, start, size) = me.object(addr + 40).expect("PROBE_ARRAY is a data symbol");
        assert!(name.contains("PROBE_ARRAY"), "{name}");
        assert_eq!((start, size), (addr, 128));
        assert!(me.name(addr + 40).unwrap().ends_with("+40"));
        assert!(me.object(addr + 128).is_none_or(|(n, _, _)| !n.contains("PROBE_ARRAY")));
    }
}
