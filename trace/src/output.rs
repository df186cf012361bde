//! The files: each PE writes its records to a part file next to the trace
//! (`<file>.pe<N>.part`), and PE 0 merges the parts into one Chrome trace
//! (the JSON "Trace Event Format" that Perfetto and `chrome://tracing` open)
//! and removes them.
//!
//! Part file: `RSHMTRC1`, then little-endian `pe: u32`, `npes: u32`,
//! `offered: u64`, `capacity: u64`, then the kept records (32 bytes each,
//! `Record::to_bytes`).
//!
//! The trace: complete events (`"ph":"X"`) with `ts` and `dur` in
//! microseconds from the job's earliest event, `pid` 0 (the job), `tid` the
//! PE, the routine as `name`, its category as `cat`, and `peer`, `bytes`
//! (and `thread` for threads after a PE's first) in `args`; one named,
//! ordered track per PE (`thread_name` "PE n", `thread_sort_index` n); and in
//! `otherData` the buffer size and, per PE, the events (kept and dropped)
//! and those dropped.

use crate::buffer::Record;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RSHMTRC1";

/// One PE's part.
#[derive(Debug, PartialEq)]
pub struct Part {
    pub pe: u32,
    pub npes: u32,
    /// Events offered to the buffer, kept or dropped.
    pub offered: u64,
    pub capacity: u64,
    pub records: Vec<Record>,
}

impl Part {
    pub fn dropped(&self) -> u64 {
        self.offered - self.records.len() as u64
    }
}

/// Where PE `pe`'s part of `trace` goes.
pub fn part_path(trace: &Path, pe: u32) -> PathBuf {
    let mut s = trace.as_os_str().to_owned();
    s.push(format!(".pe{pe}.part"));
    PathBuf::from(s)
}

pub fn write_part(path: &Path, p: &Part) -> io::Result<()> {
    let mut w = io::BufWriter::new(std::fs::File::create(path)?);
    w.write_all(MAGIC)?;
    w.write_all(&p.pe.to_le_bytes())?;
    w.write_all(&p.npes.to_le_bytes())?;
    w.write_all(&p.offered.to_le_bytes())?;
    w.write_all(&p.capacity.to_le_bytes())?;
    for r in &p.records {
        w.write_all(&r.to_bytes())?;
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_data()
}

pub fn read_part(path: &Path) -> io::Result<Part> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "not an rshmem trace part");
    if bytes.len() < 32 || &bytes[..8] != MAGIC || !(bytes.len() - 32).is_multiple_of(32) {
        return Err(bad());
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    let records = bytes[32..]
        .chunks_exact(32)
        .map(|c| Record::from_bytes(c.try_into().expect("32 bytes")))
        .collect();
    Ok(Part {
        pe: u32_at(8),
        npes: u32_at(12),
        offered: u64_at(16),
        capacity: u64_at(24),
        records,
    })
}

/// `s` as a JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Nanoseconds as microseconds with three decimals (exact, no float).
fn micros(ns: u64) -> String {
    format!("{}.{:03}", ns / 1000, ns % 1000)
}

/// What the merged trace says about the job besides its events.
pub struct Job<'a> {
    /// The program, for the process track's name.
    pub program: &'a str,
    pub npes: u32,
    pub version: &'a str,
}

/// Writes the Chrome trace of `parts` (index = PE; `None` for a PE whose
/// part is missing) to `w`. `routines` names the records' routine indices.
pub fn write_trace(w: &mut impl Write, job: &Job, parts: &[Option<Part>], routines: &[(&str, &str)]) -> io::Result<()> {
    let origin = parts
        .iter()
        .flatten()
        .flat_map(|p| p.records.iter().map(|r| r.start))
        .min()
        .unwrap_or(0);
    writeln!(w, "{{\"displayTimeUnit\":\"ns\",\"traceEvents\":[")?;
    let process = format!("rshmem: {} ({} PEs)", job.program, job.npes);
    write!(
        w,
        "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":0,\"args\":{{\"name\":{}}}}}",
        json_string(&process)
    )?;
    for pe in 0..job.npes {
        write!(
            w,
            ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":0,\"tid\":{pe},\"args\":{{\"name\":\"PE {pe}\"}}}}\
             ,\n{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":0,\"tid\":{pe},\"args\":{{\"sort_index\":{pe}}}}}"
        )?;
    }
    for (pe, part) in parts.iter().enumerate() {
        let Some(part) = part else { continue };
        for r in &part.records {
            let (name, cat) = routines
                .get(r.routine as usize)
                .copied()
                .unwrap_or(("unknown", "other"));
            let thread = if r.thread > 0 {
                format!(",\"thread\":{}", r.thread)
            } else {
                String::new()
            };
            write!(
                w,
                ",\n{{\"name\":\"{name}\",\"cat\":\"{cat}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":0,\"tid\":{pe},\
                 \"args\":{{\"peer\":{},\"bytes\":{}{thread}}}}}",
                micros(r.start.saturating_sub(origin)),
                micros(r.end.saturating_sub(r.start)),
                r.peer,
                r.bytes
            )?;
        }
    }
    let list = |f: &dyn Fn(&Part) -> u64| -> String {
        let v: Vec<String> = parts
            .iter()
            .map(|p| p.as_ref().map_or("null".to_string(), |p| f(p).to_string()))
            .collect();
        v.join(",")
    };
    let missing: Vec<String> = (0..parts.len())
        .filter(|&i| parts[i].is_none())
        .map(|i| i.to_string())
        .collect();
    let capacity = parts.iter().flatten().map(|p| p.capacity).max().unwrap_or(0);
    writeln!(
        w,
        "\n],\"otherData\":{{\"producer\":\"rshmem {}\",\"clock\":\"CLOCK_MONOTONIC\",\"npes\":{},\
         \"buffer_events\":{capacity},\"events\":[{}],\"dropped\":[{}],\"missing_pes\":[{}]}}}}",
        json_string(job.version).trim_matches('"'),
        job.npes,
        list(&|p| p.offered),
        list(&|p| p.dropped()),
        missing.join(",")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(start: u64, end: u64, routine: u16, peer: i32, bytes: u64) -> Record {
        Record {
            start,
            end,
            bytes,
            peer,
            routine,
            thread: 0,
        }
    }

    #[test]
    fn parts_round_trip() {
        let dir = std::env::temp_dir().join(format!("rshmem-trace-part-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = part_path(&dir.join("t.json"), 3);
        assert!(path.to_string_lossy().ends_with("t.json.pe3.part"));
        let p = Part {
            pe: 3,
            npes: 4,
            offered: 5,
            capacity: 2,
            records: vec![rec(10, 20, 1, 2, 8), rec(30, 45, 0, -1, 0)],
        };
        write_part(&path, &p).unwrap();
        let back = read_part(&path).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.dropped(), 3);
        std::fs::write(&path, b"garbage").unwrap();
        assert!(read_part(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    #[test]
    fn the_trace_has_a_track_per_pe_and_relative_times() {
        let parts = vec![
            Some(Part {
                pe: 0,
                npes: 2,
                offered: 1,
                capacity: 8,
                records: vec![rec(5_000, 6_500, 1, 1, 8)],
            }),
            None,
        ];
        let mut out = Vec::new();
        let job = Job {
            program: "./a \"b\"",
            npes: 2,
            version: "0.1.0",
        };
        write_trace(
            &mut out,
            &job,
            &parts,
            &[("shmem_quiet", "order"), ("shmem_putmem", "rma")],
        )
        .unwrap();
        let s = String::from_utf8(out).unwrap();
        assert!(s.contains("\"tid\":1,\"args\":{\"name\":\"PE 1\"}"), "{s}");
        assert!(
            s.contains("{\"name\":\"shmem_putmem\",\"cat\":\"rma\",\"ph\":\"X\",\"ts\":0.000,\"dur\":1.500,\"pid\":0,\"tid\":0,\"args\":{\"peer\":1,\"bytes\":8}}"),
            "{s}"
        );
        assert!(s.contains("\"dropped\":[0,null],\"missing_pes\":[1]"), "{s}");
        assert!(s.contains("./a \\\"b\\\""), "{s}");
    }
}
