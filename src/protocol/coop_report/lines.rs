//! Line table in CommonMark's sense: `\n`, `\r\n` and a lone `\r` each end a line, so line
//! numbers agree with what the Markdown parser sees (CRLF finals from Windows hosts included).

/// One line: `start..end` is its content without the line ending; `next` is where the following
/// line starts (equal to `end` on the last line when the text has no final line ending).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct LineTable {
    lines: Vec<LineSpan>,
}

impl LineTable {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut lines = Vec::new();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let eol = match bytes[i] {
                b'\n' => 1,
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
                b'\r' => 1,
                _ => 0,
            };
            if eol == 0 {
                i += 1;
                continue;
            }
            lines.push(LineSpan {
                start,
                end: i,
                next: i + eol,
            });
            i += eol;
            start = i;
        }
        if start < bytes.len() || lines.is_empty() {
            lines.push(LineSpan {
                start,
                end: bytes.len(),
                next: bytes.len(),
            });
        }
        Self { lines }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn get(&self, index: usize) -> Option<LineSpan> {
        self.lines.get(index).copied()
    }

    /// Index of the line holding byte `offset` (a line ending belongs to its line; offsets past
    /// the end map to the last line).
    pub fn index_of(&self, offset: usize) -> usize {
        let after = self.lines.partition_point(|line| line.start <= offset);
        after.saturating_sub(1)
    }
}

/// Python's `str.isspace` (what `\s` and `strip()` mean in the engine this mirrors): Unicode
/// White_Space plus the four ASCII information separators.
pub(crate) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

pub(crate) fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_lf_and_lone_cr_each_end_one_line() {
        let text = "a\r\nb\nc\rd";
        let table = LineTable::new(text);
        assert_eq!(table.len(), 4);
        let contents: Vec<&str> = (0..table.len())
            .filter_map(|i| table.get(i))
            .map(|l| &text[l.start..l.end])
            .collect();
        assert_eq!(contents, ["a", "b", "c", "d"]);
        assert_eq!(table.index_of(1), 0, "the CR of a CRLF belongs to its line");
        assert_eq!(table.index_of(3), 1);
    }

    #[test]
    fn final_line_ending_adds_no_phantom_line() {
        let table = LineTable::new("a\n");
        assert_eq!(table.len(), 1);
        assert_eq!(table.index_of(2), 0);
        assert_eq!(LineTable::new("").len(), 1);
    }
}
