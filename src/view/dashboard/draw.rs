//! Drawing the dashboard's model: the header, the workers, coverage over
//! time, the tests, the selected test's sequence or worker's pane, the
//! events and what the agent did.

use super::*;

fn status_style(s: TestStatus) -> Style {
    match s {
        TestStatus::Falsified => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        TestStatus::Shrinking => Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
        TestStatus::Passing | TestStatus::Optimized => Style::new().fg(Color::Green),
        TestStatus::Open => Style::new().fg(Color::Blue),
    }
}

/// `0.4 s`, `9.9 s`, `12 s`.
fn seconds(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        format!("{s:.0} s")
    }
}

fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Draws `model` (with `sequence`, the selected test's replay) into `f`.
pub fn draw(f: &mut Frame, model: &Model, ui: &Ui, sequence: Option<&SequenceView>) {
    let r = &model.report;
    let tests_height = (r.tests.len() as u16 + 3).clamp(4, 12);
    let [head, middle, tests, bottom, agent, keys] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Min(7),
        Constraint::Length(tests_height),
        Constraint::Min(8),
        Constraint::Length(6),
        Constraint::Length(1),
    ])
    .areas(f.area());
    header(f, head, model, ui);
    let [workers, chart] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(middle);
    worker_table(f, workers, model, ui);
    coverage_chart(f, chart, model);
    test_table(f, tests, model, ui);
    let [seq, events] =
        Layout::horizontal([Constraint::Percentage(58), Constraint::Percentage(42)]).areas(bottom);
    if ui.worker_pane {
        worker_pane(f, seq, model, ui);
    } else {
        sequence_panel(f, seq, model, ui, sequence);
    }
    let lines: Vec<Line> = model.events.iter().map(|e| Line::raw(e.as_str())).collect();
    f.render_widget(
        Paragraph::new(lines)
            .scroll((ui.events_scroll, 0))
            .block(Block::bordered().title(" Events (newest first; PgUp/PgDn) ")),
        events,
    );
    agent_panel(f, agent, model);
    f.render_widget(
        Paragraph::new(Line::from(vec![
            " q ".reversed(),
            " quit (the campaign stops and writes everything)  ".into(),
            " ↑↓ ".reversed(),
            " test  ".into(),
            " ←→ ".reversed(),
            " worker  ".into(),
            " ⏎ ".reversed(),
            if ui.worker_pane {
                " sequence  ".into()
            } else {
                " worker pane  ".into()
            },
            " p ".reversed(),
            if ui.paused {
                " resume view".into()
            } else {
                " pause view".into()
            },
        ])),
        keys,
    );
}

fn header(f: &mut Frame, area: Rect, m: &Model, ui: &Ui) {
    let r = &m.report;
    let c = &r.coverage;
    let falsified = r.tests.iter().filter(|t| t.status.is_falsified()).count();
    let state = match (ui.paused, m.end) {
        (true, _) => Span::styled(" PAUSED (p resumes) ", Style::new().black().on_yellow()),
        (false, Some(e)) => Span::styled(
            format!(" ended: {} (q leaves) ", e.as_str()),
            Style::new().black().on_cyan(),
        ),
        (false, None) => Span::styled(" fuzzing ", Style::new().black().on_green()),
    };
    let lines = vec![
        Line::from(vec![
            Span::styled(format!("rudder · {} ", r.contract), Style::new().bold()),
            state,
            format!(
                " · {} · {}{} · seed {} · {} worker{}",
                seconds(m.elapsed_secs),
                m.suite,
                r.fork.as_ref().map_or(String::new(), |f| format!(
                    " · fork of chain {} at block {}",
                    f.chain_id, f.block
                )),
                r.seed,
                r.workers,
                if r.workers == 1 { "" } else { "s" },
            )
            .into(),
        ]),
        Line::from(vec![
            "calls ".dim(),
            Span::styled(grouped(r.calls), Style::new().bold()),
            format!(" ({:.0}/s)   ", m.calls_per_sec).into(),
            "lines ".dim(),
            Span::styled(
                format!("{}/{} ({:.1}%)", c.lines_hit, c.lines, c.line_percent),
                Style::new().bold(),
            ),
            "   branches ".dim(),
            Span::styled(
                format!(
                    "{}/{} ({:.1}%)",
                    c.branches_hit, c.branches, c.branch_percent
                ),
                Style::new().bold(),
            ),
            "   points ".dim(),
            Span::styled(grouped(m.points), Style::new().bold()),
            "   corpus ".dim(),
            Span::styled(
                format!("{} sequences", r.corpus_sequences),
                Style::new().bold(),
            ),
            "   tests ".dim(),
            Span::styled(
                format!("{falsified}/{} falsified", r.tests.len()),
                if falsified > 0 {
                    Style::new().red().bold()
                } else {
                    Style::new().green()
                },
            ),
        ]),
    ];
    f.render_widget(Paragraph::new(lines).block(Block::bordered()), area);
}

fn worker_table(f: &mut Frame, area: Rect, m: &Model, ui: &Ui) {
    let cells: Vec<Vec<Span>> = m
        .workers
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let doing = match w.doing {
                "shrinking" => Span::styled(w.doing, Style::new().yellow()),
                "injected" => Span::styled(w.doing, Style::new().magenta()),
                "stopped" => Span::styled(w.doing, Style::new().dim()),
                d => Span::raw(d),
            };
            vec![
                Span::raw(format!("w{i}")),
                Span::raw(grouped(w.calls)),
                Span::raw(format!("{:.0}", w.calls_per_sec)),
                doing,
                Span::raw(format!("{}/{}", w.done, w.planned)),
                Span::raw(w.last_function.clone().unwrap_or_default()),
            ]
        })
        .collect();
    let mut state = TableState::default().with_selected(Some(ui.worker));
    let header = ["", "calls", "calls/s", "doing", "seq", "last call"];
    let widths = fitted_columns(&header, &cells, area.width.saturating_sub(2));
    let rows = cells.into_iter().map(|cells| {
        Row::new(
            cells
                .into_iter()
                .take(widths.len())
                .map(Cell::from)
                .collect::<Vec<_>>(),
        )
    });
    f.render_stateful_widget(
        Table::new(rows, widths.iter().map(|&w| Constraint::Length(w)))
            .header(Row::new(header.into_iter().take(widths.len())).style(Style::new().dim()))
            .row_highlight_style(Style::new().reversed())
            .block(Block::bordered().title(" Workers ")),
        area,
        &mut state,
    );
}

/// Widths of a table's leading columns that fit in `width` whole: each as
/// wide as its header or widest cell, columns dropped from the right when
/// the next one does not fit (a number is never cut), the last column kept
/// given the rest of the width.
fn fitted_columns(header: &[&str], rows: &[Vec<Span>], width: u16) -> Vec<u16> {
    let mut widths = Vec::new();
    let mut used = 0u16;
    for (j, h) in header.iter().enumerate() {
        let w = rows
            .iter()
            .filter_map(|r| r.get(j))
            .map(|c| c.width())
            .chain([h.chars().count()])
            .max()
            .unwrap_or(0) as u16;
        let gap = u16::from(j > 0);
        if used + gap + w > width {
            // A name may be cut, a number not.
            let fits = used + gap + h.chars().count() as u16 <= width;
            if j + 1 == header.len() && fits {
                widths.push(width - used - gap);
                used = width;
            }
            break;
        }
        used += gap + w;
        widths.push(w);
    }
    if let Some(last) = widths.last_mut() {
        *last += width - used;
    }
    widths
}

fn coverage_chart(f: &mut Frame, area: Rect, m: &Model) {
    let t0 = m.samples.first().map_or(0, |s| s.t_ms);
    let pts: Vec<(f64, f64)> = m
        .samples
        .iter()
        .map(|s| ((s.t_ms - t0) as f64 / 1000.0, s.points as f64))
        .collect();
    let tmax = pts.last().map_or(1.0, |p| p.0).max(1.0);
    let vmax = pts.iter().map(|p| p.1).fold(1.0_f64, f64::max);
    let data = Dataset::default()
        .marker(Marker::Braille)
        .graph_type(GraphType::Line)
        .style(Style::new().cyan())
        .data(&pts);
    f.render_widget(
        Chart::new(vec![data])
            .block(Block::bordered().title(" Coverage points over time "))
            .x_axis(
                Axis::default()
                    .bounds([0.0, tmax])
                    .labels(["0 s".to_string(), format!("{tmax:.0} s")]),
            )
            .y_axis(
                Axis::default()
                    .bounds([0.0, vmax * 1.05])
                    .labels(["0".to_string(), format!("{vmax:.0}")]),
            ),
        area,
    );
}

fn test_table(f: &mut Frame, area: Rect, m: &Model, ui: &Ui) {
    let rows = m.report.tests.iter().map(|t| {
        let detail = match t.status {
            TestStatus::Falsified | TestStatus::Shrinking => format!(
                "{} call{}{}",
                t.sequence.len(),
                if t.sequence.len() == 1 { "" } else { "s" },
                t.shrink_steps
                    .map_or(String::new(), |s| format!(", {s} shrink steps"))
            ),
            TestStatus::Optimized => format!("best {}", t.value.clone().unwrap_or_default()),
            _ => String::new(),
        };
        Row::new(vec![
            Cell::from(Span::styled(t.status.as_str(), status_style(t.status))),
            Cell::from(t.name.clone()),
            Cell::from(detail),
            Cell::from(t.reason.clone().unwrap_or_default()),
        ])
    });
    let mut state = TableState::default().with_selected(Some(ui.test));
    f.render_stateful_widget(
        Table::new(
            rows,
            [
                Constraint::Length(10),
                Constraint::Percentage(35),
                Constraint::Length(26),
                Constraint::Min(10),
            ],
        )
        .header(Row::new(["status", "test", "", "reason"]).style(Style::new().dim()))
        .row_highlight_style(Style::new().reversed())
        .block(Block::bordered().title(" Tests (↑↓ selects) ")),
        area,
        &mut state,
    );
}

fn sequence_panel(f: &mut Frame, area: Rect, m: &Model, ui: &Ui, seq: Option<&SequenceView>) {
    let t = m.report.tests.get(ui.test);
    let title = match t {
        Some(t) if t.status == TestStatus::Shrinking => format!(" {}: shrinking… ", t.name),
        Some(t) if t.status.is_falsified() => format!(" {}: shrunk sequence ", t.name),
        Some(t) => format!(" {} ", t.name),
        None => " Sequence ".into(),
    };
    let mut lines: Vec<Line> = Vec::new();
    match seq {
        None => lines.push(Line::raw("No sequence: the test holds so far.").dim()),
        Some(v) => {
            for (i, c) in v.calls.iter().enumerate() {
                lines.push(Line::from(vec![
                    format!("{:>2}. ", i + 1).dim(),
                    Span::styled(c.call.clone(), Style::new().bold()),
                ]));
                let mut detail = format!("    from {}", short(&c.sender));
                if c.value != "0" {
                    detail.push_str(&format!(" value {}", c.value));
                }
                if c.delay_seconds > 0 || c.delay_blocks > 0 {
                    detail.push_str(&format!(
                        " +{} s +{} blocks",
                        c.delay_seconds, c.delay_blocks
                    ));
                }
                if let Some(r) = &c.result {
                    detail.push_str(&format!(" → {}", r.outcome));
                    if let Some(reason) = &r.reason {
                        detail.push_str(&format!(": {reason}"));
                    }
                    for v in &r.returns {
                        detail.push_str(&format!(" returns {}", v.value));
                    }
                    for e in &r.events {
                        let args: Vec<String> = e.args.iter().map(|a| short(&a.value)).collect();
                        detail.push_str(&format!(
                            " emits {}({})",
                            e.name.as_deref().unwrap_or("log"),
                            args.join(", ")
                        ));
                    }
                }
                lines.push(Line::raw(detail).dim());
                if let Some(r) = c.result.as_ref().filter(|r| !r.failing.is_empty()) {
                    lines.push(Line::styled(
                        format!("    breaks {}", r.failing.join(", ")),
                        Style::new().red().bold(),
                    ));
                }
            }
        }
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(title)),
        area,
    );
}

/// `part` as a percentage of `whole` (0 of nothing).
fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// Rows of (name, calls, reverts, new points) under a header naming them.
fn counts_table<S: AsRef<str>>(lines: &mut Vec<Line>, title: &str, rows: &[(S, u64, u64, u64)]) {
    lines.push(
        Line::raw(format!(
            "{title:<24} {:>10} {:>8} {:>11}",
            "calls", "reverts", "new points"
        ))
        .dim(),
    );
    for (name, calls, reverts, points) in rows {
        lines.push(Line::raw(format!(
            "{:<24} {:>10} {:>7.0}% {:>11}",
            short(name.as_ref()),
            grouped(*calls),
            pct(*reverts, *calls),
            grouped(*points)
        )));
    }
}

/// The selected worker's pane (in place of the sequence).
fn worker_pane(f: &mut Frame, area: Rect, m: &Model, ui: &Ui) {
    let Some(w) = m.workers.get(ui.worker) else {
        return;
    };
    let d = &w.detail;
    let now = crate::eventlog::now_ms();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", w.doing), Style::new().bold()),
            format!(
                "· call {}/{} of its sequence, {} new points in it · ",
                w.done, w.planned, d.sequence_points
            )
            .into(),
            if d.last_new_ms == 0 {
                "no new coverage yet".dim()
            } else {
                format!(
                    "new coverage {:.0} s ago",
                    now.saturating_sub(d.last_new_ms) as f64 / 1000.0
                )
                .into()
            },
        ]),
        Line::from(vec![
            "calls ".dim(),
            grouped(w.calls).bold(),
            format!(" ({:.0}/s)   ", w.calls_per_sec).into(),
            "sequences ".dim(),
            grouped(d.sequences).bold(),
            "   injections ".dim(),
            grouped(d.injections).bold(),
            "   checks ".dim(),
            format!(
                "{} run, {} skipped ({:.0}%)",
                grouped(d.checks_run),
                grouped(d.checks_skipped),
                pct(d.checks_skipped, d.checks_run + d.checks_skipped)
            )
            .into(),
        ]),
    ];
    counts_table(&mut lines, "sequences", &d.origins);
    counts_table(&mut lines, "functions (most called)", &d.functions);
    lines.push(Line::raw("its newest events").dim());
    if d.events.is_empty() {
        lines.push(Line::raw("none in the EventLog's window").dim());
    }
    for e in &d.events {
        lines.push(Line::raw(e.as_str()));
    }
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::bordered().title(format!(" Worker w{} (⏎ back to the sequence) ", ui.worker)),
        ),
        area,
    );
}

fn agent_panel(f: &mut Frame, area: Rect, m: &Model) {
    let mut lines = vec![Line::from(vec![
        "priorities: ".dim(),
        if m.priorities.is_empty() {
            "none".into()
        } else {
            m.priorities.join(", ").into()
        },
        "   specs: ".dim(),
        if m.specs.is_empty() {
            "none".into()
        } else {
            m.specs.join(", ").into()
        },
    ])];
    if m.agent.is_empty() {
        lines.push(
            Line::raw(
                "No command from an agent yet (MCP: inject_transaction, prioritize_function, …).",
            )
            .dim(),
        );
    }
    lines.extend(m.agent.iter().map(|a| Line::raw(a.as_str())));
    f.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" Agent (commands as they happen) ")),
        area,
    );
}
