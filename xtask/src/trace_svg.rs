//! `cargo xtask trace-svg FILE.json [--out FILE.svg] [--title TEXT]
//! [--window FROM:TO]`: draws a trace written with `SHMEM_TRACE` (a Chrome
//! trace, see docs/debugging.md) as an SVG timeline, for a person without a
//! browser: one row per track (one per PE), a box per call coloured by
//! category, a time axis and a legend. `--window` draws only the calls
//! between two times (microseconds from the start of the trace).
//!
//! Boxes are at least one pixel wide, so the shortest call still shows. Calls
//! closer than a pixel to the box before them on the same row are merged into
//! it (coloured by the longest call inside), so a row has at most one box per
//! two pixels of width whatever the trace's size, and the file stays small.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const USAGE: &str = "trace-svg FILE.json [--out FILE.svg] [--title TEXT] [--window FROM:TO]";

/// Width of the time axis, in pixels.
const PLOT_W: f64 = 1100.0;
const LEFT: i32 = 80;
const RIGHT: i32 = 20;
const ROW_H: i32 = 26;
const TOP: i32 = 44;
const BOTTOM: i32 = 76;

/// One call.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Microseconds from the start of the trace.
    pub ts: f64,
    pub dur: f64,
    pub cat: String,
}

/// A track of the trace: its label and calls.
#[derive(Debug, Default, PartialEq)]
pub struct Track {
    pub label: String,
    pub sort: i64,
    pub events: Vec<Event>,
}

/// The tracks of a Chrome trace (JSON object or bare array), in display order.
pub fn parse(text: &str) -> Result<Vec<Track>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let events = match &v {
        Value::Array(a) => a,
        Value::Object(o) => o
            .get("traceEvents")
            .and_then(Value::as_array)
            .ok_or("no traceEvents array")?,
        _ => return Err("neither an object nor an array".into()),
    };
    let mut tracks: BTreeMap<(i64, i64), Track> = BTreeMap::new();
    for e in events {
        let num = |k: &str| e.get(k).and_then(Value::as_f64);
        let key = (num("pid").unwrap_or(0.0) as i64, num("tid").unwrap_or(0.0) as i64);
        let arg = |k: &str| e.get("args").and_then(|a| a.get(k));
        match e.get("ph").and_then(Value::as_str) {
            Some("X") => {
                let (Some(ts), Some(dur)) = (num("ts"), num("dur")) else {
                    continue;
                };
                let cat = e.get("cat").and_then(Value::as_str).unwrap_or("other").to_string();
                tracks.entry(key).or_default().events.push(Event { ts, dur, cat });
            }
            Some("M") => match e.get("name").and_then(Value::as_str) {
                Some("thread_name") => {
                    if let Some(n) = arg("name").and_then(Value::as_str) {
                        tracks.entry(key).or_default().label = n.to_string();
                    }
                }
                Some("thread_sort_index") => {
                    if let Some(i) = arg("sort_index").and_then(Value::as_i64) {
                        tracks.entry(key).or_default().sort = i;
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    let mut out: Vec<((i64, i64), Track)> = tracks.into_iter().collect();
    for ((_, tid), t) in &mut out {
        if t.label.is_empty() {
            t.label = format!("tid {tid}");
        }
        t.events.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    }
    out.sort_by_key(|(k, t)| (t.sort, *k));
    Ok(out.into_iter().map(|(_, t)| t).collect())
}

/// A box to draw: pixel columns and category.
#[derive(Debug, PartialEq)]
pub struct Span {
    pub x0: f64,
    pub x1: f64,
    pub cat: String,
}

/// The boxes of one row: `events` (sorted by start) scaled by `px_per_us`,
/// at least one pixel wide, merged when less than a pixel apart.
pub fn spans(events: &[Event], px_per_us: f64) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut longest = 0.0f64;
    for e in events {
        let x0 = e.ts * px_per_us;
        let x1 = ((e.ts + e.dur) * px_per_us).max(x0 + 1.0);
        match out.last_mut() {
            Some(last) if x0 < last.x1 + 1.0 => {
                last.x1 = last.x1.max(x1);
                if e.dur > longest {
                    longest = e.dur;
                    last.cat = e.cat.clone();
                }
            }
            _ => {
                longest = e.dur;
                out.push(Span {
                    x0,
                    x1,
                    cat: e.cat.clone(),
                });
            }
        }
    }
    out
}

/// The colour of a category (the layer's categories; grey for others).
fn colour(cat: &str) -> RGBColor {
    match cat {
        "rma" => RGBColor(31, 119, 180),
        "amo" => RGBColor(255, 127, 14),
        "signal" => RGBColor(44, 160, 44),
        "wait" => RGBColor(214, 39, 40),
        "coll" => RGBColor(148, 103, 189),
        "sync" => RGBColor(140, 86, 75),
        "order" => RGBColor(227, 119, 194),
        "lock" => RGBColor(188, 189, 34),
        "sem" => RGBColor(23, 190, 207),
        "notify" => RGBColor(0, 128, 128),
        _ => RGBColor(127, 127, 127),
    }
}

/// A tick step of 1, 2 or 5 times a power of ten giving about `n` ticks.
fn tick_step(range: f64, n: f64) -> f64 {
    let raw = (range / n).max(1e-9);
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// The unit to label a span of `us` microseconds in, and its size in µs.
fn unit(us: f64) -> (&'static str, f64) {
    if us >= 2e6 {
        ("s", 1e6)
    } else if us >= 2e3 {
        ("ms", 1e3)
    } else {
        ("µs", 1.0)
    }
}

/// `events` that overlap the window `[from, to]` (µs), cut to it and
/// shifted to start at `from`.
fn clip(events: &[Event], from: f64, to: f64) -> Vec<Event> {
    events
        .iter()
        .filter(|e| e.ts <= to && e.ts + e.dur >= from)
        .map(|e| {
            let (a, b) = (e.ts.max(from), (e.ts + e.dur).min(to));
            Event {
                ts: a - from,
                dur: b - a,
                cat: e.cat.clone(),
            }
        })
        .collect()
}

/// The SVG of `tracks`, all of it or the `window` (µs from, to).
pub fn render(tracks: &[Track], title: &str, window: Option<(f64, f64)>) -> Result<String, String> {
    let last = tracks
        .iter()
        .flat_map(|t| t.events.iter().map(|e| e.ts + e.dur))
        .fold(0.0f64, f64::max);
    let (from, to) = window.unwrap_or((0.0, last));
    let span = (to - from).max(1e-3);
    let px_per_us = PLOT_W / span;
    let width = LEFT + PLOT_W as i32 + RIGHT;
    let height = TOP + ROW_H * tracks.len().max(1) as i32 + BOTTOM;
    let mut svg = String::new();
    {
        let area: DrawingArea<SVGBackend, Shift> =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        let e = |r: Result<(), DrawingAreaErrorKind<std::io::Error>>| r.map_err(|e| e.to_string());
        e(area.fill(&WHITE))?;
        let font = |size: i32, h: HPos, v: VPos| TextStyle::from(("sans-serif", size)).pos(Pos::new(h, v));
        e(area.draw(&Text::new(
            title.to_string(),
            (LEFT, 12),
            font(16, HPos::Left, VPos::Top),
        )))?;
        let mut cats: Vec<String> = Vec::new();
        for (i, t) in tracks.iter().enumerate() {
            let y = TOP + ROW_H * i as i32;
            e(area.draw(&Text::new(
                t.label.clone(),
                (LEFT - 8, y + ROW_H / 2),
                font(13, HPos::Right, VPos::Center),
            )))?;
            let band = [(LEFT, y + 2), (LEFT + PLOT_W as i32, y + ROW_H - 2)];
            e(area.draw(&Rectangle::new(band, RGBColor(244, 244, 244).filled())))?;
            for s in spans(&clip(&t.events, from, from + span), px_per_us) {
                if !cats.contains(&s.cat) {
                    cats.push(s.cat.clone());
                }
                let (x0, x1) = (LEFT + s.x0.floor() as i32, LEFT + s.x1.ceil() as i32);
                let rect = [(x0, y + 4), (x1.max(x0 + 1), y + ROW_H - 4)];
                e(area.draw(&Rectangle::new(rect, colour(&s.cat).filled())))?;
            }
        }
        // The time axis.
        let axis_y = TOP + ROW_H * tracks.len().max(1) as i32 + 4;
        let axis = PathElement::new(vec![(LEFT, axis_y), (LEFT + PLOT_W as i32, axis_y)], BLACK);
        e(area.draw(&axis))?;
        let (name, scale) = unit(span);
        let step = tick_step(span / scale, 8.0);
        // Ticks at multiples of the step, from the first one in the window.
        let mut k = (from / scale / step).ceil();
        while k * step <= (from + span) / scale + 1e-9 {
            let v = k * step;
            let x = LEFT + ((v * scale - from) * px_per_us).round() as i32;
            e(area.draw(&PathElement::new(vec![(x, axis_y), (x, axis_y + 5)], BLACK)))?;
            let label = if step >= 1.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.*}", (-step.log10().floor()) as usize)
            };
            e(area.draw(&Text::new(label, (x, axis_y + 8), font(12, HPos::Center, VPos::Top))))?;
            k += 1.0;
        }
        e(area.draw(&Text::new(
            format!("time ({name})"),
            (LEFT + PLOT_W as i32 / 2, axis_y + 26),
            font(13, HPos::Center, VPos::Top),
        )))?;
        // The legend: the categories drawn, in order of appearance.
        let mut x = LEFT;
        let ly = axis_y + 50;
        for c in cats {
            e(area.draw(&Rectangle::new([(x, ly), (x + 14, ly + 12)], colour(&c).filled())))?;
            e(area.draw(&Text::new(
                c.clone(),
                (x + 18, ly + 6),
                font(12, HPos::Left, VPos::Center),
            )))?;
            x += 30 + 8 * c.len() as i32;
        }
        area.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The command: reads the trace, writes the SVG beside it (or to `--out`).
pub fn main(args: &[String]) -> Result<(), String> {
    let mut input = None;
    let mut out = None;
    let mut title = None;
    let mut window = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{a} needs a value\nusage: cargo xtask {USAGE}"))
        };
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value()?)),
            "--title" => title = Some(value()?),
            "--window" => window = Some(parse_window(&value()?)?),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\nusage: cargo xtask {USAGE}")),
            s if input.is_none() => input = Some(PathBuf::from(s)),
            s => return Err(format!("unexpected argument {s}\nusage: cargo xtask {USAGE}")),
        }
    }
    let input = input.ok_or_else(|| format!("usage: cargo xtask {USAGE}"))?;
    let out = out.unwrap_or_else(|| input.with_extension("svg"));
    let svg = svg_of_file(&input, title.as_deref(), window)?;
    std::fs::write(&out, svg).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

/// The SVG of the trace in `path`, titled `title` or after the file.
pub fn svg_of_file(path: &Path, title: Option<&str>, window: Option<(f64, f64)>) -> Result<String, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let tracks = parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned());
    render(&tracks, title.unwrap_or(&name), window)
}

/// `FROM:TO` in microseconds, FROM < TO.
fn parse_window(v: &str) -> Result<(f64, f64), String> {
    let bad = || format!("--window {v}: expected FROM:TO in microseconds, FROM < TO");
    let (a, b) = v.split_once(':').ok_or_else(bad)?;
    let (a, b): (f64, f64) = (
        a.trim().parse().map_err(|_| bad())?,
        b.trim().parse().map_err(|_| bad())?,
    );
    if a.is_finite() && b.is_finite() && 0.0 <= a && a < b {
        Ok((a, b))
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(ts: f64, dur: f64, cat: &str) -> Event {
        Event {
            ts,
            dur,
            cat: cat.into(),
        }
    }

    #[test]
    fn short_calls_get_a_pixel_and_close_ones_merge() {
        let s = spans(
            &[ev(0.0, 0.001, "rma"), ev(0.5, 3.0, "wait"), ev(10.0, 0.0, "amo")],
            1.0,
        );
        assert_eq!(
            s,
            vec![
                Span {
                    x0: 0.0,
                    x1: 3.5,
                    cat: "wait".into()
                },
                Span {
                    x0: 10.0,
                    x1: 11.0,
                    cat: "amo".into()
                }
            ]
        );
        // However many calls, at most one box per two pixels.
        let many: Vec<Event> = (0..100_000).map(|i| ev(i as f64 * 0.01, 0.001, "rma")).collect();
        assert!(spans(&many, 1.0).len() <= 1000);
    }

    #[test]
    fn tracks_are_ordered_and_named() {
        let json = r#"{"traceEvents":[
            {"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"PE 1"}},
            {"name":"thread_sort_index","ph":"M","pid":0,"tid":1,"args":{"sort_index":1}},
            {"name":"thread_name","ph":"M","pid":0,"tid":0,"args":{"name":"PE 0"}},
            {"name":"shmem_putmem","cat":"rma","ph":"X","ts":2.5,"dur":1.0,"pid":0,"tid":1},
            {"name":"shmem_quiet","cat":"order","ph":"X","ts":1.0,"dur":1.0,"pid":0,"tid":1},
            {"name":"shmem_barrier_all","cat":"sync","ph":"X","ts":0,"dur":4,"pid":0,"tid":0}]}"#;
        let t = parse(json).unwrap();
        assert_eq!(t.iter().map(|t| t.label.as_str()).collect::<Vec<_>>(), ["PE 0", "PE 1"]);
        assert_eq!(t[1].events, vec![ev(1.0, 1.0, "order"), ev(2.5, 1.0, "rma")]);
        let svg = render(&t, "test", None).unwrap();
        assert!(svg.contains("\nPE 0\n") && svg.contains("\nPE 1\n"), "{svg}");
        assert!(svg.contains("\nrma\n") && svg.contains("\ntime (µs)\n"), "{svg}");
        assert!(parse("[1,").is_err());
    }

    #[test]
    fn a_window_cuts_the_calls_to_it() {
        let all = [ev(0.0, 10.0, "wait"), ev(12.0, 1.0, "rma"), ev(30.0, 5.0, "coll")];
        assert_eq!(clip(&all, 5.0, 20.0), vec![ev(0.0, 5.0, "wait"), ev(7.0, 1.0, "rma")]);
        assert_eq!(parse_window("5:20.5"), Ok((5.0, 20.5)));
        for bad in ["5", "20:5", "a:b", "-1:3"] {
            assert!(parse_window(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(1000.0, 8.0), 200.0);
        assert_eq!(tick_step(7.0, 8.0), 1.0);
        assert_eq!(unit(5e3), ("ms", 1e3));
    }
}
