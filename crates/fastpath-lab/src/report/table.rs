//! Seed-style text tables: aligned columns for the terminal, the same rows as
//! a Markdown table for `report.md`.

use std::collections::HashSet;
use std::fmt::Write as _;

/// A table with a title, a header row, rows and notes printed under it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Title line.
    pub title: String,
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows; each as long as `headers`.
    pub rows: Vec<Vec<String>>,
    /// Lines printed under the table (units, caveats such as
    /// oversubscription).
    pub notes: Vec<String>,
    /// Whether the text form keeps every row on one line, its cells
    /// neither wrapped nor split into blocks, even past [`TEXT_WIDTH`]: for
    /// a table that scripts read line by line (`compare`'s).
    pub whole_rows: bool,
}

impl Table {
    /// A table with `headers`.
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Table {
        Table {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            whole_rows: false,
        }
    }

    /// Keeps every row on one line in the text form (see
    /// [`whole_rows`](Table::whole_rows)).
    pub fn keep_rows_whole(&mut self) -> &mut Table {
        self.whole_rows = true;
        self
    }

    /// Appends a row; panics if its width differs from the header's (a bug
    /// in the experiment, caught by its smoke test).
    pub fn row(&mut self, cells: Vec<String>) -> &mut Table {
        assert_eq!(
            cells.len(),
            self.headers.len(),
            "row width in table {:?}",
            self.title
        );
        self.rows.push(cells);
        self
    }

    /// Appends a note.
    pub fn note(&mut self, note: impl Into<String>) -> &mut Table {
        self.notes.push(note.into());
        self
    }

    /// Column widths in characters.
    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    /// Per column, whether it holds numbers (right-aligned) rather than
    /// text (left-aligned): every cell that is not empty or a placeholder
    /// (`n/a`, `-`, `(missing)`) begins with a digit, a sign or `≈`.
    fn numeric_columns(&self) -> Vec<bool> {
        (0..self.headers.len())
            .map(|i| {
                let mut cells = self
                    .rows
                    .iter()
                    .map(|r| r[i].trim())
                    .filter(|c| !c.is_empty() && !matches!(*c, "n/a" | "-" | "—" | "(missing)"))
                    .peekable();
                cells.peek().is_some()
                    && cells.all(|c| {
                        let c = c.strip_prefix('~').unwrap_or(c);
                        let c = c.strip_prefix(['+', '-', '−']).unwrap_or(c);
                        c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '≈' || ch == '.')
                    })
            })
            .collect()
    }

    /// Plain text, at most [`TEXT_WIDTH`] columns wide where the data
    /// allows: text columns left-aligned, numeric ones right-aligned. A
    /// table wider than that is fitted in steps, each taken only while the
    /// steps before it leave the table too wide:
    ///
    /// 1. long headers break over several lines, at spaces, down to the
    ///    width of their column's data (never below their longest word);
    /// 2. the widest free-text columns (words, not numbers, and not the
    ///    first column, which names the row) wrap within their cells onto
    ///    continuation lines (the row's other cells blank there), all cut
    ///    to one width and none below [`MIN_WRAPPED`]; a row's other cells
    ///    stay on its first line, so numbers keep their alignment and a row
    ///    is still found, whole, by its first column;
    ///
    ///    2b. if that leaves the last column narrower than [`SPILL_BELOW`]
    ///    (a long sequence or reason beside many columns), it is printed
    ///    instead under each row, full width, as `header: text`;
    /// 3. columns are separated by one space instead of two (step 2 redone
    ///    with the room that frees);
    /// 4. the columns are split into blocks printed one under another, each
    ///    repeating the rows' key (the fewest leading columns that tell the
    ///    rows apart) and each fitted by steps 2 and 3.
    ///
    /// A table with [`whole_rows`](Table::whole_rows) takes steps 1 and 3
    /// only. The title and the notes wrap at [`TEXT_WIDTH`]; a word longer
    /// than a line is cut.
    pub fn to_text(&self) -> String {
        let headers = self.header_lines();
        let n = self.headers.len();
        let mut natural: Vec<usize> = headers
            .iter()
            .map(|h| h.iter().map(|l| l.chars().count()).max().unwrap_or(0))
            .collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                natural[i] = natural[i].max(c.chars().count());
            }
        }
        let numeric = self.numeric_columns();
        // Free text: words (a cell with a space), not numbers; a column of
        // single words (names, units) is never cut.
        let free_text: Vec<bool> = (0..n)
            .map(|c| !numeric[c] && !self.whole_rows && self.rows.iter().any(|r| r[c].contains(' ')))
            .collect();
        let all: Vec<usize> = (0..n).collect();
        let whole = Layout::fit(&all, &natural, |c| c > 0 && free_text[c]);
        let last = n.saturating_sub(1);
        // The last column cut narrow: moved under the rows (step 2b) if the
        // other columns then fit.
        let spilled = (n > 1 && free_text[last] && whole.widths[last] < natural[last].min(SPILL_BELOW))
            .then(|| Layout::fit(&all[..last], &natural, |c| c > 0 && free_text[c]))
            .filter(|l| l.fits)
            .map(|l| Layout {
                spilled: Some(last),
                ..l
            });
        let blocks = if let Some(l) = spilled {
            vec![l]
        } else if whole.fits || self.whole_rows {
            vec![whole]
        } else {
            let blocks = self.blocks(&natural, &free_text);
            if blocks.len() > 1 {
                blocks
            } else {
                vec![whole]
            }
        };
        let mut out = String::new();
        for l in wrap(&self.title, TEXT_WIDTH, TEXT_WIDTH) {
            let _ = writeln!(out, "{l}");
        }
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            self.render(b, &headers, &numeric, &mut out);
        }
        for note in &self.notes {
            for (i, l) in wrap(note, TEXT_WIDTH - 2, TEXT_WIDTH - 4).into_iter().enumerate() {
                let indent = if i == 0 { "  " } else { "    " };
                let _ = writeln!(out, "{indent}{l}");
            }
        }
        out
    }

    /// The table split into blocks of columns for step 4 of
    /// [`to_text`](Table::to_text): each opens with the key columns and
    /// takes the next columns while their natural widths, two spaces apart,
    /// fit in [`TEXT_WIDTH`] (a column too wide alone gets a block to
    /// itself, where it wraps if it is text); each block then fitted.
    fn blocks(&self, natural: &[usize], free_text: &[bool]) -> Vec<Layout> {
        let keys = self.key_columns(natural);
        let key_width: usize = natural[..keys].iter().map(|w| w + 2).sum();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut width = key_width;
        for (c, &w) in natural.iter().enumerate().skip(keys) {
            match groups.last_mut() {
                Some(g) if width + 2 + w <= TEXT_WIDTH => {
                    g.push(c);
                    width += 2 + w;
                }
                _ => {
                    groups.push(vec![c]);
                    width = key_width + w;
                }
            }
        }
        groups
            .into_iter()
            .map(|g| {
                let cols: Vec<usize> = (0..keys).chain(g).collect();
                Layout::fit(&cols, natural, |c| c >= keys && free_text[c])
            })
            .collect()
    }

    /// How many leading columns make the rows' key: the fewest that tell
    /// every row apart, as long as they take at most half of
    /// [`TEXT_WIDTH`]; else the first column alone.
    fn key_columns(&self, natural: &[usize]) -> usize {
        let mut width = 0;
        for k in 1..self.headers.len() {
            width += natural[k - 1] + 2;
            if k > 1 && width > TEXT_WIDTH / 2 {
                break;
            }
            let mut seen = HashSet::new();
            if self.rows.iter().all(|r| seen.insert(&r[..k])) {
                return k;
            }
        }
        1
    }

    /// Writes the header lines, the rule and the rows of `layout`'s
    /// columns: a cell wider than its column wraps onto continuation lines,
    /// the other cells of its row blank there.
    fn render(&self, layout: &Layout, headers: &[Vec<String>], numeric: &[bool], out: &mut String) {
        // Headers broken for the whole table's width go back on one line
        // where this block has the room for them all.
        let one_line: Vec<usize> = layout
            .cols
            .iter()
            .zip(&layout.widths)
            .map(|(&c, &w)| w.max(self.headers[c].chars().count()))
            .collect();
        let gaps = layout.gap * layout.cols.len().saturating_sub(1);
        let unbroken = one_line.iter().sum::<usize>() + gaps <= TEXT_WIDTH;
        let w = if unbroken { &one_line } else { &layout.widths };
        let gap = " ".repeat(layout.gap);
        let line = |cells: &[&str], out: &mut String| {
            let mut s = String::new();
            for (k, (&c, cell)) in layout.cols.iter().zip(cells).enumerate() {
                let pad = w[k].saturating_sub(cell.chars().count());
                if k > 0 {
                    s.push_str(&gap);
                }
                if numeric[c] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(cell);
                } else {
                    s.push_str(cell);
                    s.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        // A wrapped column's header wraps to the column too.
        let heads: Vec<Vec<String>> = layout
            .cols
            .iter()
            .zip(w)
            .map(|(&c, &width)| {
                if unbroken {
                    vec![self.headers[c].clone()]
                } else if headers[c].iter().any(|l| l.chars().count() > width) {
                    wrap(&self.headers[c], width, width)
                } else {
                    headers[c].clone()
                }
            })
            .collect();
        let depth = heads.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..depth {
            // Bottom-aligned: a short header sits on the last line.
            let cells: Vec<&str> = heads
                .iter()
                .map(|h| {
                    let skip = depth - h.len();
                    if k < skip {
                        ""
                    } else {
                        h[k - skip].as_str()
                    }
                })
                .collect();
            line(&cells, out);
        }
        out.push_str(&"-".repeat(w.iter().sum::<usize>() + gaps));
        out.push('\n');
        for r in &self.rows {
            let cells: Vec<Vec<String>> = layout
                .cols
                .iter()
                .zip(w)
                .map(|(&c, &width)| wrap(&r[c], width, width))
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for k in 0..height {
                let parts: Vec<&str> = cells
                    .iter()
                    .map(|c| c.get(k).map_or("", String::as_str))
                    .collect();
                line(&parts, out);
            }
            if let Some(c) = layout.spilled.filter(|&c| !r[c].is_empty()) {
                let text = format!("{}: {}", self.headers[c], r[c]);
                for (i, l) in wrap(&text, TEXT_WIDTH - 4, TEXT_WIDTH - 6)
                    .into_iter()
                    .enumerate()
                {
                    let indent = if i == 0 { "    " } else { "      " };
                    let _ = writeln!(out, "{indent}{l}");
                }
            }
        }
    }

    /// Each header as lines: one line while the table fits in
    /// [`TEXT_WIDTH`]; otherwise long headers wrapped at spaces to the
    /// width of their column's data (never below their longest word).
    fn header_lines(&self) -> Vec<Vec<String>> {
        let w = self.widths();
        let total: usize = w.iter().sum::<usize>() + 2 * (w.len().saturating_sub(1));
        let data: Vec<usize> = (0..self.headers.len())
            .map(|i| self.rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
            .collect();
        self.headers
            .iter()
            .enumerate()
            .map(|(i, h)| {
                if total <= TEXT_WIDTH || h.chars().count() <= data[i] {
                    vec![h.clone()]
                } else {
                    let longest = h.split(' ').map(|s| s.chars().count()).max().unwrap_or(0);
                    let width = data[i].max(longest);
                    wrap(h, width, width)
                }
            })
            .collect()
    }
    /// GitHub-flavoured Markdown.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "**{}**\n", self.title);
        let esc = |s: &String| s.replace('|', "\\|");
        let _ = writeln!(
            out,
            "| {} |",
            self.headers.iter().map(esc).collect::<Vec<_>>().join(" | ")
        );
        let align: Vec<&str> = self
            .numeric_columns()
            .into_iter()
            .map(|numeric| if numeric { "---:" } else { ":---" })
            .collect();
        let _ = writeln!(out, "|{}|", align.join("|"));
        for r in &self.rows {
            let _ = writeln!(out, "| {} |", r.iter().map(esc).collect::<Vec<_>>().join(" | "));
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                let _ = writeln!(out, "- {n}");
            }
        }
        out
    }
}

/// The width `to_text` keeps tables and notes within where the data
/// allows (a terminal of 120 columns).
pub const TEXT_WIDTH: usize = 120;

/// The narrowest a free-text column is wrapped to: narrower, a cell of a
/// few words would take more lines than it saves columns.
pub const MIN_WRAPPED: usize = 16;

/// A last column that would be wrapped narrower than this is printed under
/// each row instead: a sequence of instructions or a reason with a path in
/// it reads better on full-width lines than in a column of a few words.
pub const SPILL_BELOW: usize = 40;

/// The columns of one block of a table's text form and their widths.
#[derive(Debug)]
struct Layout {
    /// The columns shown, in order.
    cols: Vec<usize>,
    /// Each shown column's width: its natural width, or less where its
    /// cells wrap.
    widths: Vec<usize>,
    /// Spaces between columns.
    gap: usize,
    /// Whether the block is within [`TEXT_WIDTH`].
    fits: bool,
    /// The column printed under each row rather than beside it.
    spilled: Option<usize>,
}

impl Layout {
    /// Fits `cols` (of `natural` widths) in [`TEXT_WIDTH`]: two-space gaps,
    /// wrapping the widest of the columns `wrappable` allows, all to one
    /// width no narrower than [`MIN_WRAPPED`]; failing that, the same with
    /// one-space gaps; failing that too, the narrowest such layout, which
    /// does not fit.
    fn fit(cols: &[usize], natural: &[usize], wrappable: impl Fn(usize) -> bool) -> Layout {
        let wide: Vec<usize> = cols
            .iter()
            .copied()
            .filter(|&c| wrappable(c) && natural[c] > MIN_WRAPPED)
            .collect();
        let mut narrowest = None;
        for gap in [2, 1] {
            let fixed: usize = cols
                .iter()
                .filter(|c| !wide.contains(c))
                .map(|&c| natural[c])
                .sum::<usize>()
                + gap * cols.len().saturating_sub(1);
            let wide_widths: Vec<usize> = wide.iter().map(|&c| natural[c]).collect();
            let cap = water_level(&wide_widths, TEXT_WIDTH.saturating_sub(fixed))
                .map_or(usize::MAX, |l| l.max(MIN_WRAPPED));
            let widths: Vec<usize> = cols
                .iter()
                .map(|&c| {
                    if wide.contains(&c) {
                        natural[c].min(cap)
                    } else {
                        natural[c]
                    }
                })
                .collect();
            let total = widths.iter().sum::<usize>() + gap * cols.len().saturating_sub(1);
            let layout = Layout {
                cols: cols.to_vec(),
                widths,
                gap,
                fits: total <= TEXT_WIDTH,
                spilled: None,
            };
            if layout.fits {
                return layout;
            }
            narrowest = Some(layout);
        }
        narrowest.expect("two gaps tried")
    }
}

/// The widest cut `l` such that `widths`, each cut to at most `l`, sum to
/// at most `budget` ("water filling": the widest are cut first, to one
/// width); `None` when they fit uncut.
fn water_level(widths: &[usize], budget: usize) -> Option<usize> {
    if widths.iter().sum::<usize>() <= budget {
        return None;
    }
    let mut sorted = widths.to_vec();
    sorted.sort_unstable();
    let (mut left, mut count) = (budget, sorted.len());
    for w in sorted {
        // Every column from here on is at least `w` wide.
        if w * count > left {
            return Some(left / count);
        }
        left -= w;
        count -= 1;
    }
    Some(0)
}

/// `text` broken at spaces into lines of at most `first` characters for the
/// first line and `rest` for the others. A word longer than its line is
/// cut; a punctuation token of one or two characters (`;` in `a ; b`, `—`)
/// stays at the end of the word before it rather than opening a line.
/// Text that fits in `first` comes back as it is.
fn wrap(text: &str, first: usize, rest: usize) -> Vec<String> {
    if text.chars().count() <= first {
        return vec![text.to_string()];
    }
    let mut units: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let punctuation = word.chars().count() <= 2 && !word.chars().any(char::is_alphanumeric);
        match units.last_mut() {
            Some(u) if punctuation => {
                u.push(' ');
                u.push_str(word);
            }
            _ => units.push(word.to_string()),
        }
    }
    let limit = |done: usize| (if done == 0 { first } else { rest }).max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for unit in units {
        let len = unit.chars().count();
        if !cur.is_empty() {
            if cur.chars().count() + 1 + len <= limit(lines.len()) {
                cur.push(' ');
                cur.push_str(&unit);
                continue;
            }
            lines.push(std::mem::take(&mut cur));
        }
        let mut chars: &[char] = &unit.chars().collect::<Vec<char>>();
        while chars.len() > limit(lines.len()) {
            let cut = limit(lines.len());
            lines.push(chars[..cut].iter().collect());
            chars = &chars[cut..];
        }
        cur = chars.iter().collect();
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Formats a value with a sensible number of significant digits; a value
/// of a million or more keeps its scale with a suffix (`2.77G`, `12.3M`)
/// instead of ten digits.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "≈".to_string();
    }
    let a = v.abs();
    if let Some(scale) = scale_of(a) {
        in_scale(v, scale)
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The suffix [`num`] gives a value of magnitude `a`: `G` from a billion,
/// `M` from a million, none below.
fn scale_of(a: f64) -> Option<(f64, &'static str)> {
    if a >= 1e9 {
        Some((1e9, "G"))
    } else if a >= 1e6 {
        Some((1e6, "M"))
    } else {
        None
    }
}

/// `v` in `scale`'s unit, with two, one or no decimals as it has one, two
/// or three digits before the point (`0.72M`, `12.3M`, `716M`).
fn in_scale(v: f64, (div, suffix): (f64, &str)) -> String {
    let x = v / div;
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

/// Two figures read together (a value and its error) in one scale: the one
/// [`num`] picks for the larger, so that `716163` beside `1.17M` reads
/// `0.72M` beside `1.17M`. Below a million both are plain [`num`]s.
pub fn num_pair(a: f64, b: f64) -> (String, String) {
    let big = [a, b]
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, |m, v| m.max(v.abs()));
    match scale_of(big) {
        Some(scale) => {
            let show = |v: f64| {
                if v.is_finite() {
                    in_scale(v, scale)
                } else {
                    num(v)
                }
            };
            (show(a), show(b))
        }
        None => (num(a), num(b)),
    }
}

/// `score ± error`, JMH style, both in one scale ([`num_pair`]).
pub fn score(mean: f64, error: f64) -> String {
    let (m, e) = num_pair(mean, error);
    format!("{m} ± {e}")
}

/// Signed percentage change of `value` against `baseline` ("+12.3%").
pub fn percent(value: f64, baseline: f64) -> String {
    if baseline == 0.0 || !baseline.is_finite() || !value.is_finite() {
        return "n/a".to_string();
    }
    format!("{:+.1}%", (value / baseline - 1.0) * 100.0)
}

/// `value / baseline` as "1.23×".
pub fn ratio(value: f64, baseline: f64) -> String {
    if baseline == 0.0 || !baseline.is_finite() || !value.is_finite() {
        return "n/a".to_string();
    }
    format!("{:.2}×", value / baseline)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The widest line of `text`, in characters.
    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn a_wide_table_fits_by_wrapping_headers_then_narrowing_gaps() {
        // The contended lock table's shape: 15 columns of short data
        // under headers of 2 to 16 characters, most of two or three words
        // to wrap at, a row label as long as its longest one.
        let lengths = [2, 3, 4, 6, 11, 8, 14, 9, 11, 4, 9, 9, 13, 11, 16];
        let names: Vec<String> = lengths
            .iter()
            .enumerate()
            .map(|(i, &n)| format!("{i:x} col by /1k run").chars().take(n).collect())
            .collect();
        let headers: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut t = Table::new(format!("T{}", " long title".repeat(20)), &headers);
        t.row(
            [
                "short-cs",
                "64",
                "pl Reentrant",
                "13.86 ± 26.22",
                "0.95×",
                "0.812",
                "0.00669",
                "12.34",
                "123.4",
                "0",
                "0.400",
                "0.400",
                "12.3",
                "100 %",
                "0.000:0.000",
            ]
            .map(String::from)
            .to_vec(),
        );
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        // Nothing cut: every cell is still there whole.
        for c in &t.rows[0] {
            assert!(text.contains(c.as_str()), "{c}: {text}");
        }
        // A narrow table keeps its two-space gaps.
        let mut n = Table::new("T", &["a", "b"]);
        n.row(vec!["x".into(), "1.00".into()]);
        assert!(n.to_text().contains("x  1.00"), "{}", n.to_text());
        // The compare table's shape: a 63-character row label.
        let mut c = Table::new("T", &["benchmark", "unit", "baseline", "change", "%", "better"]);
        c.row(
            [
                &"x".repeat(63),
                "ops/min",
                "123456 ± 12345",
                "123999 ± 13456",
                "~+0.4%",
                "baseline",
            ]
            .map(String::from)
            .to_vec(),
        );
        assert!(widest(&c.to_text()) <= TEXT_WIDTH, "{}", c.to_text());
    }

    /// The character spans (start, end) of `line`'s runs of non-spaces.
    fn spans(line: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, ch) in line.chars().chain([' ']).enumerate() {
            match (ch == ' ', start) {
                (false, None) => start = Some(i),
                (true, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    /// The lines of the row whose first line starts with `label`: up to
    /// the next line that is not a continuation line (blank under the
    /// first column and the gap after it; a note starts with two spaces).
    fn row_lines<'a>(text: &'a str, label: &str) -> Vec<&'a str> {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(label));
        let first = lines.next().unwrap_or_else(|| panic!("no row {label}:\n{text}"));
        std::iter::once(first)
            .chain(lines.take_while(|l| l.starts_with("   ")))
            .collect()
    }

    /// The whitespace-separated words of `lines`, sorted.
    fn words<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        let mut w: Vec<&str> = lines.into_iter().flat_map(str::split_whitespace).collect();
        w.sort_unstable();
        w
    }

    /// A barrier's instruction sequence of `n` instructions, ` ; `-joined
    /// as the fast-path table prints it.
    fn sequence(n: usize) -> String {
        (0..n)
            .map(|i| format!("mov 0x{i:x}(%rsi),%al"))
            .collect::<Vec<_>>()
            .join(" ; ")
    }

    #[test]
    fn a_cell_longer_than_the_room_wraps_in_its_column_and_numbers_stay_aligned() {
        let seq = sequence(12);
        assert!(seq.len() > 200);
        let mut t = Table::new(
            "T",
            &["barrier", "probe", "fast path", "baseline", "instructions"],
        );
        t.row(vec![
            "g1-card".into(),
            "probe_store_g1".into(),
            "12".into(),
            "3".into(),
            seq.clone(),
        ])
        .row(vec![
            "none".into(),
            "probe_store".into(),
            "3".into(),
            "100".into(),
            "mov %rsi,(%rdi)".into(),
        ]);
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        let g1 = row_lines(&text, "g1-card");
        assert!(g1.len() >= 3, "{text}");
        // The numbers are on the row's first line, right-aligned with the
        // other row's: their cells end in the same character columns.
        let none = row_lines(&text, "none");
        assert_eq!(none.len(), 1, "{text}");
        let (a, b) = (spans(g1[0]), spans(none[0]));
        assert_eq!(a[2].1, b[2].1, "{text}");
        assert_eq!(a[3].1, b[3].1, "{text}");
        // Continuation lines are blank up to the column; none opens with
        // the `;` separator.
        let col = a[4].0;
        assert_eq!(col, b[4].0, "{text}");
        for l in &g1[1..] {
            let (head, cell) = l.split_at(col);
            assert!(
                head.trim().is_empty() && !cell.starts_with([' ', ';']),
                "{l:?}\n{text}"
            );
        }
        // Every word comes back, in order.
        let back: Vec<&str> = g1.iter().flat_map(|l| l[col..].split_whitespace()).collect();
        assert_eq!(back, seq.split_whitespace().collect::<Vec<_>>(), "{text}");
        // Markdown keeps the cell on one line.
        assert!(t.to_markdown().contains(&seq), "{}", t.to_markdown());
    }

    /// Where `needle`'s first (or, `last`, last) occurrence in `line`
    /// ends, in characters.
    fn end_of(line: &str, needle: &str, last: bool) -> usize {
        let at = if last {
            line.rfind(needle)
        } else {
            line.find(needle)
        };
        let at = at.unwrap_or_else(|| panic!("{needle:?} not in {line:?}"));
        line[..at].chars().count() + needle.chars().count()
    }

    #[test]
    fn several_long_cells_wrap_and_the_first_column_stays_whole() {
        let what =
            "CPUID leaf 0 (X86ICacheSync=4, HotSpot's cross_modify_fence fallback), timed in a boxed closure";
        let note = "not run: no peers/jvm/results/jit.json; run ONLY=jit ./run.sh in peers/jvm (JDK 21 to 25) and pass --jvm";
        let label = "a row label of forty characters, at most";
        // Two long text columns between numbers (a last one would go under
        // the rows instead).
        let mut t = Table::new("T", &["operation", "what", "ns/op", "note", "median"]);
        t.row(vec![
            label.into(),
            what.into(),
            "12.34 ± 0.56".into(),
            note.into(),
            "12.3".into(),
        ])
        .row(vec![
            "empty".into(),
            "the baseline".into(),
            "1.00 ± 0.01".into(),
            String::new(),
            "1.00".into(),
        ]);
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        // The label whole on the row's first line, continuation lines blank
        // under it.
        let first = row_lines(&text, label);
        assert!(first.len() >= 3, "{text}");
        let label_width = label.chars().count();
        assert!(
            first[1..].iter().all(|l| l[..label_width].trim().is_empty()),
            "{text}"
        );
        // Nothing lost or cut: the same words, on the row's lines.
        let cells = [label, what, "12.34 ± 0.56", note, "12.3"];
        assert_eq!(words(first.iter().copied()), words(cells), "{text}");
        // The numbers on the first line, right-aligned with the other row's.
        let empty = row_lines(&text, "empty");
        assert_eq!(
            end_of(first[0], "12.34 ± 0.56", false),
            end_of(empty[0], "1.00 ± 0.01", false),
            "{text}"
        );
        assert_eq!(
            end_of(first[0], "12.3", true),
            end_of(empty[0], "1.00", true),
            "{text}"
        );
        // Both long columns wrapped: each has words on a continuation line.
        let below = words(first[1..].iter().copied());
        assert!(below.contains(&"boxed") && below.contains(&"--jvm"), "{text}");
        // The widest line of each column's cell.
        let (what_at, note_at) = (
            first[0][..first[0].find("CPUID").unwrap()].chars().count(),
            first[0][..first[0].find("not run:").unwrap()].chars().count(),
        );
        let width_in = |from: usize, to: usize| {
            first
                .iter()
                .map(|l| {
                    let cell: String = l.chars().skip(from).take(to - from).collect();
                    cell.trim_end().chars().count()
                })
                .max()
                .unwrap()
        };
        let ns_at = first[0][..first[0].find("12.34 ±").unwrap()].chars().count();
        let what_width = width_in(what_at, ns_at);
        let median_at = first[0][..first[0].rfind("12.3").unwrap()].chars().count();
        let note_width = width_in(note_at, median_at);
        // Each cut to the shared width, which the two share about evenly
        // (neither kept near its natural width at the other's expense).
        assert!(what_width >= MIN_WRAPPED && note_width >= MIN_WRAPPED, "{text}");
        assert!(
            what_width < what.len() * 3 / 4 && note_width < note.len() * 3 / 4,
            "{text}"
        );
    }

    #[test]
    fn a_last_column_left_too_narrow_goes_under_its_rows() {
        // The JIT tables' shape: seven short columns, then a long reason.
        let why = "not run: no /tmp/x/jit.json; `fastpath jit --hotspot` (the lock shapes) or cd peers/jvm && ONLY=jit ./run.sh (every shape; --jvm DIR reads another folder)";
        let mut t = Table::new(
            "T",
            &[
                "operation",
                "form",
                "ns/op",
                "median",
                "instr/op",
                "ratio",
                "× parking-lot",
                "note",
            ],
        );
        for (op, form, note) in [
            ("cas-pair", "rust", ""),
            ("cas-pair", "hotspot-c2", why),
            ("uncontended", "template-expecting", ""),
        ] {
            let timed = note.is_empty();
            let n = |v: &str| if timed { v.to_string() } else { "-".into() };
            t.row(vec![
                op.into(),
                form.into(),
                n("144.7 ± 103.4"),
                n("47.73"),
                n("12.00"),
                n("1.00×"),
                n("0.93×"),
                note.into(),
            ]);
        }
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        // Each row one line; the reason under its row, labelled with the
        // column's header, whole once its lines are joined.
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.starts_with("cas-pair     hotspot-c2"))
            .unwrap();
        assert!(lines[at + 1].starts_with("    note: not run:"), "{text}");
        let spilled: Vec<&str> = lines[at + 1..]
            .iter()
            .take_while(|l| l.starts_with("    "))
            .map(|l| l.trim())
            .collect();
        assert_eq!(spilled.join(" "), format!("note: {why}"), "{text}");
        assert!(lines[at + 1 + spilled.len()].starts_with("uncontended"), "{text}");
        // No row of the header names the moved column.
        assert!(!text.lines().take(at).any(|l| l.contains("note")), "{text}");
        // The first row, with an empty reason, has no line under it.
        let first = lines
            .iter()
            .position(|l| l.starts_with("cas-pair     rust"))
            .unwrap();
        assert!(lines[first + 1].starts_with("cas-pair"), "{text}");
    }

    #[test]
    fn a_word_longer_than_the_room_is_cut_and_kept_whole_in_order() {
        let word = "/".to_string() + &"abcdefghij".repeat(30);
        let mut t = Table::new("T", &["row", "n", "why"]);
        t.row(vec![
            "r".into(),
            "1".into(),
            format!("not run: {word} is missing"),
        ]);
        t.note(format!("see {word}"));
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        // The word, cut over several lines, reads back whole once the
        // lines' cells are joined; the same for the note.
        let row = row_lines(&text, "r ");
        let col = spans(row[0])[2].0;
        let joined: String = row.iter().map(|l| l[col..].trim()).collect();
        assert!(joined.contains(&word), "{joined}\n{text}");
        let notes: String = text
            .lines()
            .skip_while(|l| !l.starts_with("  see"))
            .map(str::trim)
            .collect();
        assert_eq!(notes, format!("see{word}"), "{text}");
        assert_eq!(wrap("abcdefgh", 3, 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("a ; b ; c", 4, 4), ["a ;", "b ;", "c"]);
        assert_eq!(wrap("short", 10, 2), ["short"]);
    }

    #[test]
    fn rows_kept_whole_stay_on_one_line() {
        // The compare table's shape with a row name too long for 120
        // columns: each row one line, read by whitespace.
        let name = format!(
            "{} [threads=1] mode=lightweight :ratio_to_best_peer",
            "x".repeat(40)
        );
        let mut t = Table::new("T", &["benchmark", "unit", "baseline", "change", "%", "better"]);
        t.keep_rows_whole();
        t.row(
            [
                name.as_str(),
                "ops/min",
                "123456 ± 12345",
                "123999 ± 13456",
                "~+0.4%",
                "same",
            ]
            .map(String::from)
            .to_vec(),
        );
        let text = t.to_text();
        let rows: Vec<&str> = text.lines().filter(|l| l.contains(" [threads=")).collect();
        assert_eq!(rows.len(), 1, "{text}");
        let v: Vec<&str> = rows[0].split_whitespace().collect();
        assert_eq!(
            (v[5], v[7], v[8], v[v.len() - 1]),
            ("123456", "12345", "123999", "same"),
            "{text}"
        );
        // Without it, the same table is split into blocks that fit.
        t.whole_rows = false;
        assert!(widest(&t.to_text()) <= TEXT_WIDTH, "{}", t.to_text());
    }

    #[test]
    fn a_table_too_wide_for_any_wrap_splits_into_blocks_under_its_key() {
        // The mutators' side of the pause table: a key, then 20 numeric
        // columns under long headers.
        let headers: Vec<String> = ["set", "wait"]
            .into_iter()
            .map(String::from)
            .chain((0..20).map(|i| format!("figure number {i} (ms/s)")))
            .collect();
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let mut t = Table::new("T", &headers);
        for (set, wait) in [
            ("shenandoah, no GC work (baseline)", "-"),
            ("shenandoah", "futex"),
            ("shenandoah", "spin"),
        ] {
            let mut row = vec![set.to_string(), wait.to_string()];
            row.extend((0..20).map(|i| format!("{}.{i:03}", i * 7)));
            t.row(row);
        }
        let text = t.to_text();
        assert!(widest(&text) <= TEXT_WIDTH, "{text}");
        // The key (set and wait: the set alone repeats) opens every block.
        let blocks = text.lines().filter(|l| l.starts_with("---")).count();
        assert!(blocks >= 2, "{text}");
        let keyed = text
            .lines()
            .filter(|l| l.split_whitespace().take(2).eq(["shenandoah", "futex"]))
            .count();
        assert_eq!(keyed, blocks, "{text}");
        // Every cell is printed once per block (keys) or once (the rest).
        for r in &t.rows {
            for c in &r[2..] {
                let n = text
                    .lines()
                    .flat_map(str::split_whitespace)
                    .filter(|w| w == c)
                    .count();
                assert!(n >= 1, "{c}: {text}");
            }
        }
        assert_eq!(water_level(&[10, 50, 80], 100), Some(45));
        assert_eq!(water_level(&[10, 50], 100), None);
    }

    #[test]
    fn a_value_and_its_error_share_a_scale() {
        assert_eq!(num_pair(716163.0, 1.17e6), ("0.72M".into(), "1.17M".into()));
        assert_eq!(score(2771815795.0, 1165896080.0), "2.77G ± 1.17G");
        assert_eq!(num_pair(12.0, 0.5), ("12.00".into(), "0.500".into()));
        assert_eq!(num(716163.0), "716163");
        assert_eq!(num(1.17e6), "1.17M");
    }

    #[test]
    fn aligns_columns() {
        let mut t = Table::new("T", &["name", "score"]);
        t.row(vec!["a".into(), "1.00".into()])
            .row(vec!["longer".into(), "100.0".into()]);
        let text = t.to_text();
        let lines: Vec<&str> = text.lines().collect();
        // title, header, rule, then the rows
        assert_eq!(lines[3].chars().count(), lines[4].chars().count());
        assert!(lines[3].ends_with(" 1.00"), "{text}");
        assert!(t.to_markdown().contains("| longer | 100.0 |"));
        assert!(t.to_markdown().contains("|:---|---:|"), "{}", t.to_markdown());
    }

    #[test]
    fn text_columns_are_left_aligned_numbers_right_aligned() {
        let mut t = Table::new("T", &["strategy", "method", "ns"]);
        t.row(vec!["a".into(), "iret-to-self".into(), "-5.0%".into()])
            .row(vec!["bb".into(), "clwb loop".into(), "n/a".into()])
            .row(vec!["c".into(), "x".into(), "≈".into()]);
        assert_eq!(t.numeric_columns(), [false, false, true]);
        let md = t.to_markdown();
        assert!(md.contains("|:---|:---|---:|"), "{md}");
        let text = t.to_text();
        let row = text.lines().nth(4).unwrap();
        assert!(row.starts_with("bb        clwb loop     "), "{text}");
        assert!(row.ends_with("  n/a"), "{text}");
    }

    #[test]
    fn formats_ratios_and_percentages() {
        assert_eq!(percent(110.0, 100.0), "+10.0%");
        assert_eq!(percent(90.0, 100.0), "-10.0%");
        assert_eq!(ratio(115.0, 100.0), "1.15×");
        assert_eq!(percent(1.0, 0.0), "n/a");
        assert_eq!(num(f64::NAN), "≈");
    }
}
