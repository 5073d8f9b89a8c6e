//! Seed-style text tables: aligned columns for the terminal, the same rows as
//! a Markdown table for `report.md`.

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
}

impl Table {
    /// A table with `headers`.
    pub fn new(title: impl Into<String>, headers: &[&str]) -> Table {
        Table {
            title: title.into(),
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
        }
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

    /// Plain text: text columns left-aligned, numeric ones right-aligned.
    /// A table wider than [`TEXT_WIDTH`] breaks its long headers over
    /// several lines, at spaces, down to the width of the column's data,
    /// and if still wider separates its columns by one space instead of
    /// two; notes wrap at [`TEXT_WIDTH`].
    pub fn to_text(&self) -> String {
        let headers = self.header_lines();
        let mut w: Vec<usize> = headers
            .iter()
            .map(|h| h.iter().map(|l| l.chars().count()).max().unwrap_or(0))
            .collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        let numeric = self.numeric_columns();
        // Two spaces between columns; one where two would take the table
        // past TEXT_WIDTH after its headers were wrapped.
        let gaps = w.len().saturating_sub(1);
        let gap = if w.iter().sum::<usize>() + 2 * gaps > TEXT_WIDTH {
            " "
        } else {
            "  "
        };
        let mut out = String::new();
        for (_, l) in wrap(&self.title, TEXT_WIDTH) {
            let _ = writeln!(out, "{l}");
        }
        let line = |cells: &[&str], out: &mut String| {
            let mut s = String::new();
            for (i, c) in cells.iter().enumerate() {
                let pad = w[i] - c.chars().count();
                if i > 0 {
                    s.push_str(gap);
                }
                if numeric[i] {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(c);
                } else {
                    s.push_str(c);
                    s.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        let depth = headers.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..depth {
            // Bottom-aligned: a short header sits on the last line.
            let cells: Vec<&str> = headers
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
            line(&cells, &mut out);
        }
        let total: usize = w.iter().sum::<usize>() + gap.len() * gaps;
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            let cells: Vec<&str> = r.iter().map(String::as_str).collect();
            line(&cells, &mut out);
        }
        for n in &self.notes {
            for l in wrap(n, TEXT_WIDTH - 4) {
                let indent = if l.0 { "  " } else { "    " };
                let _ = writeln!(out, "{indent}{}", l.1);
            }
        }
        out
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
                    wrap(h, data[i]).into_iter().map(|(_, l)| l).collect()
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

/// `text` broken at spaces into lines of at most `width` characters (a word
/// longer than that gets a line of its own); each line with whether it
/// starts the text.
fn wrap(text: &str, width: usize) -> Vec<(bool, String)> {
    let mut lines: Vec<(bool, String)> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push((lines.is_empty(), std::mem::take(&mut cur)));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    lines.push((lines.is_empty(), cur));
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
        // The contended table's shape: 15 columns of short data under
        // long headers, a row label as long as its longest one.
        let headers = [
            "cs",
            "thr",
            "lock",
            "Mops/s",
            "× best peer",
            "min /max",
            "hand-overs /1k",
            "vol cs/1k",
            "invol cs/1k",
            "lost",
            "infl /run",
            "defl /run",
            "fair h-o /run",
            "infl. share",
            "spin won:gave up",
        ];
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
