//! The timeline as a swimlane picture (SVG), for a bug report: per process a chart with one
//! row per source lane (the lanes of [`super::tickets::lanes`]), a bar per ticket from dispatch
//! to its end coloured by outcome, the worker's part drawn inside it, and a mark for every
//! failure, rejection, retirement, refused demand and restart. Drawn with `plotters` (its SVG
//! backend); the x axis is milliseconds since the process's first trace line.

use super::stage::Stage;
use super::tickets::{Ending, Marker, ProcessTimeline, TicketInterval, Timeline, lanes};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Drawing failed (plotters reports backend errors as text).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the swimlane picture: {0}")]
pub struct SvgError(String);

fn drawing<E: std::fmt::Display>(err: E) -> SvgError {
    SvgError(err.to_string())
}

const WIDTH: u32 = 1600;
const ROW: u32 = 26;
/// The legend column at the right of every chart.
const LEGEND: u32 = 230;
const LEGEND_LINE: u32 = 20;
/// Caption, axis and legend around the rows of one process.
const CHROME: u32 = 110;

const ADMITTED: RGBColor = RGBColor(76, 160, 90);
const ADMITTED_FAILED: RGBColor = RGBColor(230, 150, 40);
const REJECTED: RGBColor = RGBColor(205, 70, 60);
const RETIRED: RGBColor = RGBColor(150, 150, 150);
const UNFINISHED: RGBColor = RGBColor(120, 170, 220);
const WORKER: RGBColor = RGBColor(40, 40, 60);
const REFUSED: RGBColor = RGBColor(140, 80, 170);
const RESTART: RGBColor = RGBColor(20, 20, 20);

fn ticket_color(t: &TicketInterval) -> RGBColor {
    match (&t.ending, &t.failure_class) {
        (Ending::Admitted, None) => ADMITTED,
        (Ending::Admitted, Some(_)) => ADMITTED_FAILED,
        (Ending::Rejected(_), _) => REJECTED,
        (Ending::Retired(_), _) => RETIRED,
        (Ending::Unfinished, _) => UNFINISHED,
    }
}

fn marker_color(stage: Stage) -> RGBColor {
    match stage {
        Stage::WorkerReturn => ADMITTED_FAILED,
        Stage::Reject => REJECTED,
        Stage::Retire => RETIRED,
        Stage::Refused => REFUSED,
        _ => RESTART,
    }
}

/// One drawn row: its label and, per ticket, the row it is drawn on.
struct Rows {
    labels: Vec<String>,
    /// (ticket, row from the top)
    tickets: Vec<(TicketInterval, usize)>,
    /// (marker, row from the top)
    markers: Vec<(Marker, usize)>,
}

fn rows_of(process: &ProcessTimeline) -> Rows {
    let mut rows = Rows {
        labels: Vec::new(),
        tickets: Vec::new(),
        markers: Vec::new(),
    };
    for source in process.sources() {
        let tickets = process.tickets.get(source).map_or(&[][..], Vec::as_slice);
        let (assigned, lane_count) = lanes(tickets, process.last_us);
        let first = rows.labels.len();
        let label = crate::sanitize::sanitize(source).into_owned();
        for lane in 0..lane_count.max(1) {
            rows.labels.push(if lane == 0 {
                label.clone()
            } else {
                format!("{label} ({})", lane + 1)
            });
        }
        for (ticket, lane) in tickets.iter().zip(assigned) {
            rows.tickets.push((ticket.clone(), first + lane));
        }
        for marker in process.markers.get(source).map_or(&[][..], Vec::as_slice) {
            rows.markers.push((marker.clone(), first));
        }
    }
    rows
}

/// The height of the chart of `rows` rows.
fn chart_height(rows: usize) -> u32 {
    CHROME + ROW * u32::try_from(rows.max(1)).unwrap_or(u32::MAX / ROW / 2)
}

/// The chart's height, or the legend's (eleven lines at most) when that is taller.
fn process_height(process: &ProcessTimeline) -> u32 {
    chart_height(rows_of(process).labels.len()).max(LEGEND_LINE * 11 + 60)
}

fn ms(us: u64, origin: u64) -> f64 {
    us.saturating_sub(origin) as f64 / 1000.0
}

fn draw_process<DB: DrawingBackend>(
    whole: &DrawingArea<DB, Shift>,
    pid: Option<u32>,
    process: &ProcessTimeline,
) -> Result<(), SvgError> {
    let (area, legend_area) = whole.split_horizontally(WIDTH - LEGEND);
    let legend_area = &legend_area;
    let rows = rows_of(process);
    // Every row the same height, whatever the legend beside it needs.
    let (area, _) = area.split_vertically(chart_height(rows.labels.len()));
    let count = rows.labels.len().max(1);
    // Plotters counts rows from the bottom; the first source is drawn at the top.
    let y = |row: usize| count - 1 - row.min(count - 1);
    let origin = process.first_us;
    let span_ms = ms(process.last_us, origin).max(0.001);
    let caption = match pid {
        Some(p) => format!("masc-tui (pid {p}): dispatch → admission per ticket"),
        None => "masc-tui: dispatch → admission per ticket".to_string(),
    };
    let label_width = rows
        .labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(8);
    let mut chart = ChartBuilder::on(&area)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(u32::try_from(label_width * 7 + 20).unwrap_or(300).min(400))
        .build_cartesian_2d(0f64..span_ms, (0..count).into_segmented())
        .map_err(drawing)?;
    let labels = rows.labels.clone();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .label_style(("sans-serif", 12))
        .axis_desc_style(("sans-serif", 12))
        .x_desc("ms since the process's first trace line")
        .y_labels(count)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(row) if *row < count => {
                labels.get(count - 1 - *row).cloned().unwrap_or_default()
            }
            _ => String::new(),
        })
        .draw()
        .map_err(drawing)?;

    let mut legend: Vec<(String, LegendMark)> = Vec::new();
    let outcomes: [(&str, RGBColor); 5] = [
        ("admitted", ADMITTED),
        ("admitted, worker failed", ADMITTED_FAILED),
        ("rejected", REJECTED),
        ("retired", RETIRED),
        ("unfinished", UNFINISHED),
    ];
    for (label, color) in outcomes {
        let bars: Vec<_> = rows
            .tickets
            .iter()
            .filter(|(t, _)| ticket_color(t) == color)
            .map(|(t, row)| {
                let end = t.end_us.unwrap_or(process.last_us).max(t.dispatch_us);
                let mut bar = Rectangle::new(
                    [
                        (ms(t.dispatch_us, origin), SegmentValue::Exact(y(*row) + 1)),
                        (ms(end, origin), SegmentValue::Exact(y(*row))),
                    ],
                    color.filled(),
                );
                bar.set_margin(4, 4, 0, 0);
                bar
            })
            .collect();
        if !bars.is_empty() {
            legend.push((format!("{label} ({})", bars.len()), LegendMark::Bar(color)));
            chart.draw_series(bars).map_err(drawing)?;
        }
    }
    let workers: Vec<_> = rows
        .tickets
        .iter()
        .filter_map(|(t, row)| {
            let returned = t.worker_return_us?;
            let started = t.worker_enter_us.unwrap_or(t.dispatch_us);
            let mut bar = Rectangle::new(
                [
                    (ms(started, origin), SegmentValue::Exact(y(*row) + 1)),
                    (ms(returned, origin), SegmentValue::Exact(y(*row))),
                ],
                WORKER.mix(0.55).filled(),
            );
            bar.set_margin(10, 10, 0, 0);
            Some(bar)
        })
        .collect();
    if !workers.is_empty() {
        legend.push(("worker start → return".to_string(), LegendMark::Worker));
        chart.draw_series(workers).map_err(drawing)?;
    }
    let marks: [(&str, Stage); 5] = [
        ("worker failed", Stage::WorkerReturn),
        ("rejected", Stage::Reject),
        ("retired", Stage::Retire),
        ("refused demand", Stage::Refused),
        ("restart", Stage::Restart),
    ];
    for (label, stage) in marks {
        let color = marker_color(stage);
        let points: Vec<_> = rows
            .markers
            .iter()
            .filter(|(m, _)| m.stage == stage)
            .map(|(m, row)| {
                TriangleMarker::new(
                    (ms(m.ts_us, origin), SegmentValue::CenterOf(y(*row))),
                    5,
                    color.stroke_width(2),
                )
            })
            .collect();
        if !points.is_empty() {
            legend.push((
                format!("mark: {label} ({})", points.len()),
                LegendMark::Triangle(color),
            ));
            chart.draw_series(points).map_err(drawing)?;
        }
    }
    draw_legend(legend_area, &legend)
}

/// What a legend line shows beside its words.
enum LegendMark {
    Bar(RGBColor),
    Worker,
    Triangle(RGBColor),
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[(String, LegendMark)],
) -> Result<(), SvgError> {
    let style = ("sans-serif", 13).into_font().color(&BLACK);
    for (i, (words, mark)) in lines.iter().enumerate() {
        let top = 40 + LEGEND_LINE as i32 * i32::try_from(i).unwrap_or(i32::MAX / 40);
        match mark {
            LegendMark::Bar(color) => area
                .draw(&Rectangle::new([(0, top), (16, top + 12)], color.filled()))
                .map_err(drawing)?,
            LegendMark::Worker => area
                .draw(&Rectangle::new(
                    [(0, top + 4), (16, top + 8)],
                    WORKER.mix(0.55).filled(),
                ))
                .map_err(drawing)?,
            LegendMark::Triangle(color) => area
                .draw(&TriangleMarker::new((8, top + 6), 5, color.stroke_width(2)))
                .map_err(drawing)?,
        }
        area.draw(&Text::new(words.as_str(), (24, top), style.clone()))
            .map_err(drawing)?;
    }
    Ok(())
}

/// The whole timeline as one SVG document, a chart per process, stacked.
pub fn swimlane_svg(timeline: &Timeline) -> Result<String, SvgError> {
    let heights: Vec<u32> = timeline.processes.values().map(process_height).collect();
    let total = heights.iter().sum::<u32>().max(CHROME);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, total)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let mut rest = root.clone();
        for ((pid, process), height) in timeline.processes.iter().zip(heights) {
            let (area, below) = rest.split_vertically(height);
            draw_process(&area, *pid, process)?;
            rest = below;
        }
        root.present().map_err(drawing)?;
    }
    Ok(svg)
}
