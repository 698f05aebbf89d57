//! Writing cells fast (every whole frame copies each kept row's cells).
//!
//! A kept roster row is copied into every whole frame. `Cell::clone` copies its symbol (an
//! `Option<CompactString>`) through the stack, ≈ 6–10 ns a cell on this machine (perf: most of
//! a whole roster frame). A cell whose symbol is one printable ASCII byte — most of them — is
//! written here from a constant cell of that symbol instead, its attributes copied field by
//! field ([`copy_cells`]; any other cell is cloned): a whole 200×60 roster frame went from
//! 104 µs to 61 µs. The painters set one-byte symbols the same way ([`set_symbol_byte`]).

use ratatui::buffer::Cell;

/// The cell of the one-byte symbol `byte` with no attributes: a constant per printable ASCII
/// byte (written as a store, not a clone); `None` for any other byte.
macro_rules! ascii_cell {
    ($byte:expr; $($b:literal => $s:literal),* $(,)?) => {
        match $byte {
            $($b => Some({
                const CELL: Cell = Cell::new($s);
                CELL
            }),)*
            _ => None,
        }
    };
}

#[inline]
fn ascii_cell(byte: u8) -> Option<Cell> {
    ascii_cell!(byte;
        b' ' => " ", b'!' => "!", b'"' => "\"", b'#' => "#", b'$' => "$", b'%' => "%", b'&' => "&", b'\'' => "'",
        b'(' => "(", b')' => ")", b'*' => "*", b'+' => "+", b',' => ",", b'-' => "-", b'.' => ".", b'/' => "/",
        b'0' => "0", b'1' => "1", b'2' => "2", b'3' => "3", b'4' => "4", b'5' => "5", b'6' => "6", b'7' => "7",
        b'8' => "8", b'9' => "9", b':' => ":", b';' => ";", b'<' => "<", b'=' => "=", b'>' => ">", b'?' => "?",
        b'@' => "@", b'A' => "A", b'B' => "B", b'C' => "C", b'D' => "D", b'E' => "E", b'F' => "F", b'G' => "G",
        b'H' => "H", b'I' => "I", b'J' => "J", b'K' => "K", b'L' => "L", b'M' => "M", b'N' => "N", b'O' => "O",
        b'P' => "P", b'Q' => "Q", b'R' => "R", b'S' => "S", b'T' => "T", b'U' => "U", b'V' => "V", b'W' => "W",
        b'X' => "X", b'Y' => "Y", b'Z' => "Z", b'[' => "[", b'\\' => "\\", b']' => "]", b'^' => "^", b'_' => "_",
        b'`' => "`", b'a' => "a", b'b' => "b", b'c' => "c", b'd' => "d", b'e' => "e", b'f' => "f", b'g' => "g",
        b'h' => "h", b'i' => "i", b'j' => "j", b'k' => "k", b'l' => "l", b'm' => "m", b'n' => "n", b'o' => "o",
        b'p' => "p", b'q' => "q", b'r' => "r", b's' => "s", b't' => "t", b'u' => "u", b'v' => "v", b'w' => "w",
        b'x' => "x", b'y' => "y", b'z' => "z", b'{' => "{", b'|' => "|", b'}' => "}", b'~' => "~",
    )
}

/// `cell` (a constant one-byte cell) with every attribute of `of`.
#[allow(deprecated)] // `Cell::skip`, still copied (a cell's equality compares it)
#[inline]
fn with_attributes(mut cell: Cell, of: &Cell) -> Cell {
    cell.fg = of.fg;
    cell.bg = of.bg;
    cell.underline_color = of.underline_color;
    cell.modifier = of.modifier;
    cell.diff_option = of.diff_option;
    cell.skip = of.skip;
    cell
}

/// Sets the symbol of `cell` to the one byte `byte`, keeping its attributes: what
/// `Cell::set_symbol` does, written from the constant cell of a printable ASCII byte.
pub fn set_symbol_byte(cell: &mut Cell, byte: u8) {
    match ascii_cell(byte) {
        Some(new) => *cell = with_attributes(new, cell),
        None => {
            cell.set_char(char::from(byte));
        }
    }
}

/// Copies `from` into `to` (the same length), cell for cell: every cell of `to` then equals the
/// one of `from` in symbol and every attribute.
pub fn copy_cells(to: &mut [Cell], from: &[Cell]) {
    for (to, from) in to.iter_mut().zip(from) {
        match from.symbol().as_bytes() {
            [byte] if let Some(cell) = ascii_cell(*byte) => *to = with_attributes(cell, from),
            _ => to.clone_from(from),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::buffer::CellDiffOption;
    use ratatui::style::{Color, Modifier};

    /// `set_symbol_byte` is `Cell::set_symbol` of that byte: the attributes kept, the symbol
    /// replaced.
    #[test]
    fn a_symbol_byte_is_set_as_set_symbol_sets_it() {
        for byte in 0x20u8..0x7f {
            let mut want = Cell::new("한");
            want.fg = Color::Red;
            want.modifier = Modifier::REVERSED;
            want.diff_option = CellDiffOption::Skip;
            let mut got = want.clone();
            want.set_symbol(&char::from(byte).to_string());
            set_symbol_byte(&mut got, byte);
            assert_eq!(got, want);
            assert_eq!(got.symbol(), want.symbol());
        }
    }

    /// Every printable ASCII byte, other symbols (wide, combining, none) and each attribute
    /// are copied as they are: equal cells, the same symbol, the same attributes.
    #[test]
    #[allow(deprecated)]
    fn copied_cells_equal_their_originals() {
        let mut symbols: Vec<String> = (0x20u8..0x7f).map(|b| char::from(b).to_string()).collect();
        symbols.extend(["한", "👍🏽", "e\u{301}", "ab", ""].map(String::from));
        let mut from = Vec::new();
        for (i, symbol) in symbols.iter().enumerate() {
            let mut cell = Cell::EMPTY;
            if i % 7 != 6 {
                cell.set_symbol(symbol);
            }
            cell.fg = [Color::Reset, Color::Red, Color::Rgb(1, 2, 3)][i % 3];
            cell.bg = [Color::Indexed(7), Color::Reset][i % 2];
            cell.underline_color = [Color::Reset, Color::Blue][i % 2];
            cell.modifier = [Modifier::empty(), Modifier::BOLD | Modifier::REVERSED][i % 2];
            cell.diff_option = [
                CellDiffOption::None,
                CellDiffOption::Skip,
                CellDiffOption::AlwaysUpdate,
                CellDiffOption::ForcedWidth(std::num::NonZeroU16::MIN),
            ][i % 4];
            cell.skip = i % 5 == 0;
            from.push(cell);
        }
        // Copied over empty cells and over cells holding something else.
        for start in [Cell::EMPTY, Cell::new("x")] {
            let mut to = vec![start; from.len()];
            copy_cells(&mut to, &from);
            for (to, from) in to.iter().zip(&from) {
                assert_eq!(to, from);
                assert_eq!(to.symbol(), from.symbol());
                assert_eq!(
                    (
                        to.fg,
                        to.bg,
                        to.underline_color,
                        to.modifier,
                        to.diff_option,
                        to.skip
                    ),
                    (
                        from.fg,
                        from.bg,
                        from.underline_color,
                        from.modifier,
                        from.diff_option,
                        from.skip
                    )
                );
            }
        }
    }
}
