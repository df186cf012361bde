//! Cutting one PE's output stream into whole lines.
//!
//! Output is forwarded a line at a time so that lines of different PEs never
//! mix. Each stream keeps the unfinished end of its last read until the newline
//! arrives; complete lines are appended to the output in one piece.

/// An unfinished line longer than this is forwarded anyway (in pieces), so a PE
/// writing a huge line, or binary data, cannot make oshrun's memory grow.
pub(crate) const MAX_PARTIAL: usize = 64 * 1024;

/// The unfinished line of one stream.
#[derive(Default, Debug)]
pub(crate) struct LineBuf {
    partial: Vec<u8>,
    /// Part of the current line was already forwarded (it was too long), so its
    /// continuation gets no tag.
    mid_line: bool,
}

impl LineBuf {
    /// Appends to `out` every line completed by `data`, each preceded by `tag`,
    /// and keeps the rest for later.
    pub(crate) fn feed(&mut self, data: &[u8], tag: Option<&[u8]>, out: &mut Vec<u8>) {
        let Some(last) = data.iter().rposition(|&b| b == b'\n') else {
            self.partial.extend_from_slice(data);
            if self.partial.len() >= MAX_PARTIAL {
                self.emit_partial(tag, out);
            }
            return;
        };
        let (complete, tail) = data.split_at(last + 1);
        match tag {
            // Untagged: the complete lines are copied in one go.
            None => {
                out.extend_from_slice(&self.partial);
                out.extend_from_slice(complete);
            }
            Some(t) => {
                for (i, line) in complete.split_inclusive(|&b| b == b'\n').enumerate() {
                    if i > 0 || !self.mid_line {
                        out.extend_from_slice(t);
                    }
                    if i == 0 {
                        out.extend_from_slice(&self.partial);
                    }
                    out.extend_from_slice(line);
                }
            }
        }
        self.partial.clear();
        self.mid_line = false;
        self.partial.extend_from_slice(tail);
        if self.partial.len() >= MAX_PARTIAL {
            self.emit_partial(tag, out);
        }
    }

    /// At end of file: forwards the unfinished line. Untagged output is passed
    /// on exactly; tagged output gets the newline it lacks, so the next tag
    /// starts a line.
    pub(crate) fn finish(&mut self, tag: Option<&[u8]>, out: &mut Vec<u8>) {
        if !self.partial.is_empty() {
            self.emit_partial(tag, out);
        }
        if self.mid_line && tag.is_some() {
            out.push(b'\n');
        }
        self.mid_line = false;
    }

    fn emit_partial(&mut self, tag: Option<&[u8]>, out: &mut Vec<u8>) {
        if let (Some(t), false) = (tag, self.mid_line) {
            out.extend_from_slice(t);
        }
        out.extend_from_slice(&self.partial);
        self.partial.clear();
        self.mid_line = true;
    }
}

/// The tag of PE `pe` for `--tag-output`.
pub(crate) fn tag(pe: usize) -> Vec<u8> {
    format!("[PE {pe}] ").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds the chunks, then finishes; returns the output.
    fn run(chunks: &[&[u8]], tag: Option<&[u8]>) -> Vec<u8> {
        let mut lb = LineBuf::default();
        let mut out = Vec::new();
        for c in chunks {
            lb.feed(c, tag, &mut out);
        }
        lb.finish(tag, &mut out);
        out
    }

    #[test]
    fn whole_lines_only_until_eof() {
        let mut lb = LineBuf::default();
        let mut out = Vec::new();
        lb.feed(b"ab", None, &mut out);
        assert!(out.is_empty());
        lb.feed(b"c\nde", None, &mut out);
        assert_eq!(out, b"abc\n");
        lb.feed(b"f\ng\nh", None, &mut out);
        assert_eq!(out, b"abc\ndef\ng\n");
        lb.finish(None, &mut out);
        assert_eq!(out, b"abc\ndef\ng\nh", "the last partial line is kept as is");
    }

    #[test]
    fn tags_every_line() {
        let t = tag(3);
        assert_eq!(t, b"[PE 3] ");
        assert_eq!(
            run(&[b"a\nb", b"c\n\nd"], Some(&t)),
            b"[PE 3] a\n[PE 3] bc\n[PE 3] \n[PE 3] d\n"
        );
        assert_eq!(run(&[b"x\n"], Some(&t)), b"[PE 3] x\n");
        assert_eq!(run(&[], Some(&t)), b"");
        assert_eq!(run(&[b"", b"\n"], Some(&t)), b"[PE 3] \n");
    }

    #[test]
    fn long_lines_are_forwarded_in_pieces() {
        let long = vec![b'x'; MAX_PARTIAL + 10];
        let mut lb = LineBuf::default();
        let mut out = Vec::new();
        lb.feed(&long, Some(b"T "), &mut out);
        assert_eq!(out.len(), 2 + long.len(), "flushed at the limit, tagged once");
        lb.feed(b"yy\nz", Some(b"T "), &mut out);
        assert!(out.ends_with(b"xyy\n"), "the continuation has no tag");
        lb.finish(Some(b"T "), &mut out);
        assert!(out.ends_with(b"xyy\nT z\n"));

        let mut lb = LineBuf::default();
        let mut out = Vec::new();
        lb.feed(b"a", None, &mut out);
        lb.feed(&long, None, &mut out);
        assert_eq!(out.len(), 1 + long.len());
        lb.feed(b"\n", None, &mut out);
        lb.finish(None, &mut out);
        assert_eq!(out.len(), 2 + long.len());
        assert_eq!(out.last(), Some(&b'\n'));
    }

    #[test]
    fn one_byte_at_a_time() {
        let text = b"one\ntwo\nthree";
        let chunks: Vec<&[u8]> = text.chunks(1).collect();
        assert_eq!(run(&chunks, None), text);
        assert_eq!(run(&chunks, Some(b"> ")), b"> one\n> two\n> three\n");
    }
}
