//! A program's data symbols, from its ELF symbol table (or its dynamic one
//! when stripped): the hang report names a watched address with them
//! (`lookup`).

use object::{Object, ObjectSegment, ObjectSymbol, SymbolKind};
use std::path::Path;

/// A program's data symbols, sorted by address (link-time addresses).
pub struct Symbols {
    /// Link-time address of the first loadable segment.
    pub first_load: u64,
    syms: Vec<Symbol>,
}

struct Symbol {
    addr: u64,
    size: u64,
    name: String,
}

impl Symbols {
    /// The symbols of the ELF file at `path`, if it can be read.
    pub fn load(path: &Path) -> Option<Symbols> {
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
                })
            })
            .filter(|s| !s.name.is_empty() && !s.name.starts_with('$'))
            .collect();
        syms.sort_by(|a, b| (a.addr, a.size, &a.name).cmp(&(b.addr, b.size, &b.name)));
        syms.dedup_by(|a, b| a.addr == b.addr && a.name == b.name);
        Some(Symbols { first_load, syms })
    }

    /// "flag", or "grid+24" inside an array.
    pub fn name(&self, vaddr: u64) -> Option<String> {
        let i = self.syms.partition_point(|s| s.addr <= vaddr).checked_sub(1)?;
        let s = &self.syms[i];
        let off = vaddr - s.addr;
        match off {
            0 => Some(s.name.clone()),
            _ if off < s.size.max(1) => Some(format!("{}+{off}", s.name)),
            _ => None,
        }
    }
}
