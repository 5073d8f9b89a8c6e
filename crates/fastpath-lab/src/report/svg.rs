//! A small, dependency-free SVG line-plot writer.
//!
//! Where it sits: an experiment builds a [`LinePlot`] from its results (one
//! [`Series`] per strategy, x usually a size in bytes on a log2 axis) and
//! pushes `(file name, plot.to_svg())` into `Report::plots`; the report
//! writer stores the file next to the JSON and links it from `report.md`.
//!
//! The output is plain SVG 1.1 with no scripts, fonts or external
//! references: axes and ticks as `<line>`/`<text>`, one `<path>` per series
//! (and only series are paths, which the tests rely on), a legend with a
//! coloured swatch per series. All text is XML-escaped.

use std::fmt::Write as _;

/// One line of a plot.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// Points `(x, y)`, drawn in the order given. Points that cannot be
    /// placed on a log axis (x or y ≤ 0 there) or are not finite are skipped.
    pub points: Vec<(f64, f64)>,
}

/// How an axis maps values to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Linear, ticks at "nice" steps.
    Linear,
    /// Logarithmic base 2, ticks at powers of two, labelled as byte sizes
    /// (256, 1K, 64K, 1M).
    Log2Bytes,
    /// Logarithmic base 10, ticks at powers of ten.
    Log10,
}

/// A line plot: title, axes, series, legend.
#[derive(Clone, Debug, PartialEq)]
pub struct LinePlot {
    /// Title above the plot.
    pub title: String,
    /// Label under the x axis.
    pub x_label: String,
    /// Label left of the y axis.
    pub y_label: String,
    /// x scale.
    pub x_scale: Scale,
    /// y scale.
    pub y_scale: Scale,
    /// The lines.
    pub series: Vec<Series>,
}

const WIDTH: f64 = 800.0;
const HEIGHT: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 180.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const PALETTE: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#17becf",
];

impl LinePlot {
    /// A plot with a log2 byte-size x axis and a linear y axis.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> LinePlot {
        LinePlot {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_scale: Scale::Log2Bytes,
            y_scale: Scale::Linear,
            series: Vec::new(),
        }
    }

    /// Sets the y scale.
    pub fn y_scale(mut self, scale: Scale) -> LinePlot {
        self.y_scale = scale;
        self
    }

    /// Sets the x scale.
    pub fn x_scale(mut self, scale: Scale) -> LinePlot {
        self.x_scale = scale;
        self
    }

    /// Adds a series.
    pub fn series(mut self, name: impl Into<String>, points: Vec<(f64, f64)>) -> LinePlot {
        self.series.push(Series {
            name: name.into(),
            points,
        });
        self
    }

    /// The SVG document.
    pub fn to_svg(&self) -> String {
        let placeable = |s: Scale, v: f64| v.is_finite() && (s == Scale::Linear || v > 0.0);
        let pts: Vec<Vec<(f64, f64)>> = self
            .series
            .iter()
            .map(|s| {
                s.points
                    .iter()
                    .copied()
                    .filter(|&(x, y)| placeable(self.x_scale, x) && placeable(self.y_scale, y))
                    .collect()
            })
            .collect();
        let all = pts.iter().flatten();
        let (mut x0, mut x1, mut y0, mut y1) =
            (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if !x0.is_finite() {
            (x0, x1, y0, y1) = (1.0, 2.0, 1.0, 2.0);
        }
        let x_axis = Axis::new(self.x_scale, x0, x1);
        let y_axis = Axis::new(
            self.y_scale,
            if self.y_scale == Scale::Linear {
                y0.min(0.0)
            } else {
                y0
            },
            y1,
        );
        let plot_w = WIDTH - LEFT - RIGHT;
        let plot_h = HEIGHT - TOP - BOTTOM;
        let px = |x: f64| LEFT + x_axis.frac(x) * plot_w;
        let py = |y: f64| TOP + (1.0 - y_axis.frac(y)) * plot_h;

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">
<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>
<text x="{:.1}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
            LEFT + plot_w / 2.0,
            escape(&self.title)
        );
        // Axes.
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{b:.1}" x2="{r:.1}" y2="{b:.1}" stroke="black"/>
<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b:.1}" stroke="black"/>"##,
            b = TOP + plot_h,
            r = LEFT + plot_w
        );
        for (v, label) in x_axis.ticks() {
            let x = px(v);
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{b:.1}" stroke="#e0e0e0"/>
<text x="{x:.1}" y="{ty:.1}" text-anchor="middle">{}</text>"##,
                escape(&label),
                b = TOP + plot_h,
                ty = TOP + plot_h + 16.0
            );
        }
        for (v, label) in y_axis.ticks() {
            let y = py(v);
            let _ = writeln!(
                s,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{r:.1}" y2="{y:.1}" stroke="#e0e0e0"/>
<text x="{tx:.1}" y="{ty:.1}" text-anchor="end">{}</text>"##,
                escape(&label),
                r = LEFT + plot_w,
                tx = LEFT - 6.0,
                ty = y + 4.0
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>
<text x="16" y="{:.1}" text-anchor="middle" transform="rotate(-90 16 {:.1})">{}</text>"#,
            LEFT + plot_w / 2.0,
            HEIGHT - 16.0,
            escape(&self.x_label),
            TOP + plot_h / 2.0,
            TOP + plot_h / 2.0,
            escape(&self.y_label)
        );
        // Series and legend.
        for (i, (series, points)) in self.series.iter().zip(&pts).enumerate() {
            let colour = PALETTE[i % PALETTE.len()];
            let mut d = String::new();
            for (j, &(x, y)) in points.iter().enumerate() {
                let _ = write!(d, "{}{:.1},{:.1}", if j == 0 { "M" } else { " L" }, px(x), py(y));
            }
            let _ = writeln!(
                s,
                r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="2"><title>{}</title></path>"#,
                escape(&series.name)
            );
            for &(x, y) in points {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="2.5" fill="{colour}"/>"#,
                    px(x),
                    py(y)
                );
            }
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let lx = WIDTH - RIGHT + 16.0;
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.1}" y="{:.1}" width="14" height="4" fill="{colour}"/>
<text x="{:.1}" y="{:.1}">{}</text>"#,
                ly - 4.0,
                lx + 20.0,
                ly + 2.0,
                escape(&series.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// A mapping from data values to [0, 1] along one axis.
struct Axis {
    scale: Scale,
    lo: f64,
    hi: f64,
}

impl Axis {
    fn new(scale: Scale, lo: f64, hi: f64) -> Axis {
        let (lo, hi) = match scale {
            Scale::Linear => {
                let step = nice_step((hi - lo).abs().max(f64::MIN_POSITIVE));
                let lo = (lo / step).floor() * step;
                let hi = ((hi / step).ceil() * step).max(lo + step);
                (lo, hi)
            }
            Scale::Log2Bytes => {
                let lo = lo.log2().floor();
                (lo, hi.log2().ceil().max(lo + 1.0))
            }
            Scale::Log10 => {
                let lo = lo.log10().floor();
                (lo, hi.log10().ceil().max(lo + 1.0))
            }
        };
        Axis { scale, lo, hi }
    }

    fn transform(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log2Bytes => v.log2(),
            Scale::Log10 => v.log10(),
        }
    }

    fn frac(&self, v: f64) -> f64 {
        (self.transform(v) - self.lo) / (self.hi - self.lo)
    }

    /// Tick values (in data units) and labels.
    fn ticks(&self) -> Vec<(f64, String)> {
        match self.scale {
            Scale::Linear => {
                let step = nice_step(self.hi - self.lo);
                let n = ((self.hi - self.lo) / step).round() as usize;
                (0..=n)
                    .map(|i| {
                        let v = self.lo + step * i as f64;
                        (v, trim_number(v))
                    })
                    .collect()
            }
            Scale::Log2Bytes => {
                let every = ((self.hi - self.lo) / 12.0).ceil().max(1.0) as i64;
                (self.lo as i64..=self.hi as i64)
                    .filter(|e| (e - self.lo as i64) % every == 0)
                    .map(|e| (2f64.powi(e as i32), bytes_label(e)))
                    .collect()
            }
            Scale::Log10 => (self.lo as i64..=self.hi as i64)
                .map(|e| {
                    let v = 10f64.powi(e as i32);
                    (v, trim_number(v))
                })
                .collect(),
        }
    }
}

/// A step of 1, 2 or 5 × 10^k giving about 5–10 ticks over `span`.
fn nice_step(span: f64) -> f64 {
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let m = raw / mag;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

fn trim_number(v: f64) -> String {
    if v.abs() >= 1.0 || v == 0.0 {
        format!("{}", (v * 1000.0).round() / 1000.0)
    } else {
        format!("{v:.3}")
    }
}

fn bytes_label(log2: i64) -> String {
    match log2 {
        e if e < 0 => format!("{}", 2f64.powi(e as i32)),
        e if e < 10 => format!("{}", 1u64 << e),
        e if e < 20 => format!("{}K", 1u64 << (e - 10)),
        e if e < 30 => format!("{}M", 1u64 << (e - 20)),
        e => format!("{}G", 1u64 << (e - 30).min(62)),
    }
}

/// Escapes text for XML character data and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal well-formedness check: every tag is closed in order, no
    /// stray `<` or `&` in text, attributes quoted. Returns the element names
    /// in document order.
    fn check_well_formed(doc: &str) -> Result<Vec<String>, String> {
        let body = doc
            .strip_prefix(r#"<?xml version="1.0" encoding="UTF-8"?>"#)
            .ok_or("missing XML declaration")?;
        let mut stack: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut rest = body;
        while let Some(open) = rest.find('<') {
            check_text(&rest[..open])?;
            let close = rest[open..].find('>').ok_or("unterminated tag")? + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let top = stack.pop().ok_or_else(|| format!("stray </{name}>"))?;
                if top != name.trim() {
                    return Err(format!("</{name}> closes <{top}>"));
                }
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                return Err(format!("bad element name in <{tag}>"));
            }
            if tag[name.len()..].matches('"').count() % 2 != 0 {
                return Err(format!("unbalanced quotes in <{tag}>"));
            }
            check_text(&tag[name.len()..].replace('"', ""))?;
            names.push(name.clone());
            if !self_closing {
                stack.push(name);
            }
        }
        check_text(rest)?;
        if !stack.is_empty() {
            return Err(format!("unclosed {stack:?}"));
        }
        if names.first().map(String::as_str) != Some("svg") {
            return Err("root is not <svg>".into());
        }
        Ok(names)
    }

    fn check_text(t: &str) -> Result<(), String> {
        let mut rest = t;
        while let Some(i) = rest.find('&') {
            let ent = &rest[i..];
            let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| ent.starts_with(e));
            if !ok {
                return Err(format!("bare & in {t:?}"));
            }
            rest = &rest[i + 1..];
        }
        if t.contains('<') {
            return Err(format!("bare < in {t:?}"));
        }
        Ok(())
    }

    #[test]
    fn one_path_per_series_and_well_formed() {
        let sizes: Vec<f64> = (8..=18).map(|e| 2f64.powi(e)).collect();
        let plot = LinePlot::new("flush <time> & \"size\"", "bytes", "ns")
            .y_scale(Scale::Log10)
            .series("none", sizes.iter().map(|&s| (s, 30.0)).collect())
            .series("clflush", sizes.iter().map(|&s| (s, s / 25.0)).collect())
            .series("a'b", vec![(256.0, 0.0), (512.0, f64::NAN), (1024.0, 5.0)]);
        let svg = plot.to_svg();
        let names = check_well_formed(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        assert_eq!(names.iter().filter(|n| *n == "path").count(), 3);
        assert!(svg.contains("flush &lt;time&gt; &amp; &quot;size&quot;"));
        assert!(svg.contains(">256K<") && svg.contains(">1K<"), "{svg}");
        // The log-y series skipped its zero and NaN points: one point left.
        let last_path = svg.lines().filter(|l| l.starts_with("<path")).nth(2).unwrap();
        assert!(!last_path.contains(" L"), "{last_path}");
    }

    #[test]
    fn linear_and_empty_plots_are_well_formed() {
        let empty = LinePlot::new("empty", "x", "y").to_svg();
        assert_eq!(
            check_well_formed(&empty)
                .unwrap()
                .iter()
                .filter(|n| *n == "path")
                .count(),
            0
        );
        let lin = LinePlot::new("lin", "x", "y")
            .x_scale(Scale::Linear)
            .series("s", vec![(0.0, -3.0), (10.0, 7.5)])
            .to_svg();
        assert_eq!(
            check_well_formed(&lin)
                .unwrap()
                .iter()
                .filter(|n| *n == "path")
                .count(),
            1
        );
        assert!(check_well_formed("<svg><a></svg>").is_err());
    }

    #[test]
    fn tick_helpers() {
        assert_eq!(bytes_label(8), "256");
        assert_eq!(bytes_label(10), "1K");
        assert_eq!(bytes_label(21), "2M");
        assert_eq!(nice_step(100.0), 20.0);
        assert_eq!(nice_step(6.0), 1.0);
    }
}
