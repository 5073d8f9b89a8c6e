//! A grouped horizontal bar chart in plain SVG: one group of bars per
//! category (a program), one bar per series (a VM tier, a locking mode),
//! and a reference line (1× for ratios, 0% for changes).
//!
//! Where it sits: the `vm` tables' plots, which compare categories rather
//! than a curve over sizes (what `report::svg::LinePlot` draws). Same
//! conventions: SVG 1.1, no scripts or external references, every text
//! XML-escaped, one `<rect class="bar">` per drawn value.

use std::fmt::Write as _;

use crate::report::svg::escape;

/// A chart: categories top to bottom, each with one value per series.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Title above the chart.
    pub title: String,
    /// Label of the value axis.
    pub value_label: String,
    /// The series' names, in bar order.
    pub series: Vec<String>,
    /// (category, one value per series; NaN draws no bar).
    pub categories: Vec<(String, Vec<f64>)>,
    /// Where bars start and the reference line stands (1 for ratios, 0
    /// for changes).
    pub reference: f64,
}

const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];
const WIDTH: f64 = 900.0;
const LEFT: f64 = 190.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 50.0;
const BAR: f64 = 9.0;
const GAP: f64 = 8.0;

impl BarChart {
    /// An empty chart.
    pub fn new(title: impl Into<String>, value_label: impl Into<String>, reference: f64) -> BarChart {
        BarChart {
            title: title.into(),
            value_label: value_label.into(),
            series: Vec::new(),
            categories: Vec::new(),
            reference,
        }
    }

    /// Sets the series' names.
    pub fn series<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> BarChart {
        self.series = names.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a category with one value per series.
    pub fn category(&mut self, name: impl Into<String>, values: Vec<f64>) {
        self.categories.push((name.into(), values));
    }

    /// Whether any bar would be drawn.
    pub fn has_values(&self) -> bool {
        self.categories
            .iter()
            .any(|(_, v)| v.iter().any(|x| x.is_finite()))
    }

    /// The value range drawn: every finite value and the reference, padded.
    fn range(&self) -> (f64, f64) {
        let vals = self
            .categories
            .iter()
            .flat_map(|(_, v)| v.iter().copied())
            .filter(|x| x.is_finite())
            .chain([self.reference]);
        let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - if lo < self.reference { pad } else { 0.0 }, hi + pad)
    }

    /// The SVG document.
    pub fn to_svg(&self) -> String {
        let n_series = self.series.len().max(1) as f64;
        let band = n_series * BAR + GAP;
        let plot_h = band * self.categories.len().max(1) as f64;
        let height = TOP + plot_h + BOTTOM;
        let plot_w = WIDTH - LEFT - RIGHT;
        let (lo, hi) = self.range();
        let x = |v: f64| LEFT + (v - lo) / (hi - lo) * plot_w;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="22" font-size="14" text-anchor="middle">{}</text>"#,
            WIDTH / 2.0,
            escape(&self.title)
        );
        // Value ticks, and the reference line.
        for t in ticks(lo, hi) {
            let tx = x(t);
            let _ = writeln!(
                s,
                r##"<line x1="{tx:.1}" y1="{TOP}" x2="{tx:.1}" y2="{:.1}" stroke="#e0e0e0"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
                TOP + plot_h,
                TOP + plot_h + 16.0,
                escape(&tick_label(t))
            );
        }
        let rx = x(self.reference);
        let _ = writeln!(
            s,
            r##"<line x1="{rx:.1}" y1="{:.1}" x2="{rx:.1}" y2="{:.1}" stroke="#333" stroke-width="1.5"/>"##,
            TOP - 4.0,
            TOP + plot_h
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            height - 10.0,
            escape(&self.value_label)
        );
        for (ci, (name, values)) in self.categories.iter().enumerate() {
            let top = TOP + ci as f64 * band;
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 8.0,
                top + (band - GAP) / 2.0 + 4.0,
                escape(name)
            );
            for (si, v) in values.iter().enumerate() {
                if !v.is_finite() {
                    continue;
                }
                let (a, b) = (x(self.reference.min(*v)), x(self.reference.max(*v)));
                let _ = writeln!(
                    s,
                    r#"<rect class="bar" x="{a:.1}" y="{:.1}" width="{:.1}" height="{BAR}" fill="{}"><title>{}: {}</title></rect>"#,
                    top + si as f64 * BAR,
                    (b - a).max(0.5),
                    PALETTE[si % PALETTE.len()],
                    escape(&format!(
                        "{name}, {}",
                        self.series.get(si).map_or("", String::as_str)
                    )),
                    escape(&tick_label(*v))
                );
            }
        }
        for (si, name) in self.series.iter().enumerate() {
            let ly = TOP + si as f64 * 18.0;
            let lx = WIDTH - RIGHT + 16.0;
            let _ = writeln!(
                s,
                r#"<rect x="{lx:.1}" y="{ly:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
                PALETTE[si % PALETTE.len()],
                lx + 18.0,
                ly + 10.0,
                escape(name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// About six round ticks between `lo` and `hi`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 50 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_finite_value_and_text_is_escaped() {
        let mut c = BarChart::new("ratios <a&b>", "× HotSpot", 1.0).series(["int", "jit"]);
        c.category("Richards", vec![1.2, f64::NAN]);
        c.category("Json", vec![0.8, 3.0]);
        let svg = c.to_svg();
        assert_eq!(svg.matches(r#"class="bar""#).count(), 3);
        assert!(svg.contains("ratios &lt;a&amp;b&gt;"), "{svg}");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(c.has_values());
        assert!(!BarChart::new("e", "x", 0.0).has_values());
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 3.0), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
        let t = ticks(-12.0, 40.0);
        assert!(
            t.contains(&0.0) && t.first().unwrap() >= &-12.0 && t.last().unwrap() <= &40.0,
            "{t:?}"
        );
    }
}
