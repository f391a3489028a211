//! The report mail's chart of the daily rates: stacked bars (failure at the bottom, then
//! warning, then pass; 0 to 100 %), one per day of the period, drawn with plotters into an
//! RGB buffer and encoded as PNG (mail clients show a PNG where they refuse SVG). The text is
//! DejaVu Sans, compiled in (`assets/fonts`, its licence beside it): nothing is looked up on
//! the system or fetched. A day without runs has no bar; a period without runs says 'No data'
//! in the mail's language (the console's catalogs).

use std::sync::OnceLock;

use chrono::NaiveDate;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontStyle};

use crate::domain::messages::t;
use crate::domain::report_mail::{ids, Counts, CHART_H, CHART_W};
use crate::domain::report_schedule::Language;

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/LICENSE-DejaVu.txt`).
const FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// The family the chart's text is written in.
const FAMILY: &str = "sans-serif";

/// Colours of the bars (the console's): pass, warning, failure; the grid and the text.
pub const PASS: RGBColor = RGBColor(0x2e, 0x7d, 0x32);
pub const WARN: RGBColor = RGBColor(0xef, 0x6c, 0x00);
pub const FAIL: RGBColor = RGBColor(0xc6, 0x28, 0x28);
const GRID: RGBColor = RGBColor(0xcb, 0xd2, 0xd9);
const TEXT: RGBColor = RGBColor(0x3e, 0x4c, 0x59);

/// Registers the font with plotters, once for the process.
fn register() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| "the compiled-in font cannot be read".to_string())
    })
    .clone()
}

/// The chart of `days` (each date of the period with its counts) in `l`, as PNG (8-bit RGB,
/// `CHART_W` × `CHART_H`).
pub fn chart_png(days: &[(NaiveDate, Counts)], l: Language) -> Result<Vec<u8>, String> {
    register()?;
    let (w, h) = (CHART_W, CHART_H);
    let mut rgb = vec![0xffu8; (w * h * 3) as usize];
    draw(&mut rgb, days, l).map_err(|e| format!("the chart cannot be drawn: {e}"))?;
    let mut out = Vec::with_capacity(16 * 1024);
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::High);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

fn draw(
    rgb: &mut [u8],
    days: &[(NaiveDate, Counts)],
    l: Language,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::with_buffer(rgb, (CHART_W, CHART_H)).into_drawing_area();
    root.fill(&WHITE)?;
    let n = days.len().max(1);
    // Day i is centred on x = i: labels sit under their bars.
    let mut chart = ChartBuilder::on(&root)
        .margin_top(10)
        .margin_right(10)
        .x_label_area_size(24)
        .y_label_area_size(44)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..100f64)?;
    let label_font = (FAMILY, 11).into_font().color(&TEXT);
    let date_label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        days.get(i as usize)
            .map(|(d, _)| d.format("%m/%d").to_string())
            .unwrap_or_default()
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.min(10))
        .x_label_formatter(&date_label)
        .y_labels(3)
        .y_label_formatter(&|v| match l {
            Language::En => format!("{v:.0}%"),
            Language::Fr => format!("{v:.0}\u{202f}%"),
        })
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .axis_style(GRID)
        .label_style(label_font.clone())
        .draw()?;
    let any = days.iter().any(|(_, c)| c.total() > 0);
    if !any {
        let (pw, ph) = chart.plotting_area().dim_in_pixel();
        let (x0, y0) = chart.plotting_area().get_base_pixel();
        let style = (FAMILY, 18)
            .into_font()
            .color(&TEXT)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(
            t(l, ids::NO_DATA, &[]),
            (x0 + pw as i32 / 2, y0 + ph as i32 / 2),
            style,
        ))?;
        root.present()?;
        return Ok(());
    }
    // Each bar: failure from 0, warning above it, pass to 100; a day without runs has none.
    let half = 0.35;
    let bars = days.iter().enumerate().flat_map(|(i, (_, c))| {
        let total = c.total();
        let x = i as f64;
        let mut parts = Vec::new();
        if total > 0 {
            let pct = |v: u64| v as f64 * 100.0 / total as f64;
            let (f, wn) = (pct(c.fail), pct(c.warn));
            for (lo, hi, colour) in [(0.0, f, FAIL), (f, f + wn, WARN), (f + wn, 100.0, PASS)] {
                if hi > lo {
                    parts.push(Rectangle::new(
                        [(x - half, lo), (x + half, hi)],
                        colour.filled(),
                    ));
                }
            }
        }
        parts
    });
    chart.draw_series(bars)?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoded image: width, height, RGB bytes.
    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let dec = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = dec.read_info().expect("a PNG");
        let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut buf).expect("a frame");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn at(img: &(u32, u32, Vec<u8>), x: u32, y: u32) -> RGBColor {
        let i = ((y * img.0 + x) * 3) as usize;
        RGBColor(img.2[i], img.2[i + 1], img.2[i + 2])
    }

    fn count(img: &(u32, u32, Vec<u8>), c: RGBColor) -> usize {
        img.2.chunks(3).filter(|p| p == &[c.0, c.1, c.2]).count()
    }

    fn day(d: &str, pass: u64, warn: u64, fail: u64) -> (NaiveDate, Counts) {
        (d.parse().unwrap(), Counts { pass, warn, fail })
    }

    #[test]
    fn the_chart_is_a_png_of_stacked_daily_bars() {
        let days = vec![
            day("2026-11-16", 50, 25, 25),
            day("2026-11-17", 0, 0, 0),
            day("2026-11-18", 100, 0, 0),
        ];
        let img = decode(&chart_png(&days, Language::En).unwrap());
        assert_eq!((img.0, img.1), (CHART_W, CHART_H));
        // The first bar's column, bottom to top: failure, warning, pass, in 1:1:2.
        let xs: Vec<u32> = (0..img.0)
            .filter(|&x| (0..img.1).any(|y| at(&img, x, y) == FAIL))
            .collect();
        assert!(!xs.is_empty(), "no failure drawn");
        let mid = (xs[0] + xs[xs.len() - 1]) / 2;
        let column: Vec<RGBColor> = (0..img.1).rev().map(|y| at(&img, mid, y)).collect();
        let first = |c| column.iter().position(|p| *p == c).unwrap();
        assert!(first(FAIL) < first(WARN) && first(WARN) < first(PASS));
        let n = |c| column.iter().filter(|p| **p == c).count() as f64;
        assert!((n(FAIL) - n(WARN)).abs() <= 2.0, "{} {}", n(FAIL), n(WARN));
        assert!(
            (n(PASS) - 2.0 * n(FAIL)).abs() <= 3.0,
            "{} {}",
            n(PASS),
            n(FAIL)
        );
        // The day without runs has no bar: no grey, nothing where the second bar would be
        // (the bars' centres are evenly spaced; the third's is found as the first's was).
        let third: Vec<u32> = (xs[xs.len() - 1] + 1..img.0)
            .filter(|&x| (0..img.1).any(|y| at(&img, x, y) == PASS))
            .collect();
        let third_mid = (third[0] + third[third.len() - 1]) / 2;
        let second = (mid + third_mid) / 2;
        assert!(
            (0..img.1).all(|y| ![PASS, WARN, FAIL].contains(&at(&img, second, y))),
            "a bar on the day without runs"
        );
        // The third day is all pass.
        assert!(count(&img, PASS) > count(&img, FAIL) * 4);
    }

    #[test]
    fn a_period_without_runs_says_no_data_in_the_mails_language() {
        let days = vec![day("2026-11-16", 0, 0, 0), day("2026-11-17", 0, 0, 0)];
        let en = decode(&chart_png(&days, Language::En).unwrap());
        let fr = decode(&chart_png(&days, Language::Fr).unwrap());
        for img in [&en, &fr] {
            for c in [PASS, WARN, FAIL] {
                assert_eq!(count(img, c), 0, "a bar without runs");
            }
            // The words are written in the middle of the plot.
            let (cx, cy) = (img.0 / 2, img.1 / 2);
            let dark = (cx - 60..cx + 60)
                .flat_map(|x| (cy - 15..cy + 15).map(move |y| (x, y)))
                .filter(|&(x, y)| {
                    let p = at(img, x, y);
                    u32::from(p.0) + u32::from(p.1) + u32::from(p.2) < 3 * 160
                })
                .count();
            assert!(dark > 50, "no 'No data' written ({dark} dark pixels)");
        }
        assert_ne!(en.2, fr.2, "'No data' and 'Aucune donnée' draw the same");
    }
}
