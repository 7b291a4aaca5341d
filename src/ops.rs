//! What the ops family reads beyond the other stores: a history
//! of the campaign's metrics (sampled four times a second, halved in
//! resolution when full, so any campaign length fits a fixed budget), the
//! agent's steering decisions (kept in the journal database and reloaded on
//! resume), and the lock that keeps `specs.json` in step with the tests.

pub mod rows;

use parking_lot::RwLock;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How often the sampler records the campaign's metrics.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(250);

/// Samples kept at most; when full, every other one is dropped and the
/// interval doubles.
pub const MAX_SAMPLES: usize = 16_384;

/// The campaign's metrics at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sample {
    pub t_ms: u64,
    pub calls: u64,
    pub sequences: u64,
    pub points: u64,
    pub corpus: u64,
    pub open: u64,
    pub falsified: u64,
    /// Calls over the whole campaign: every node's in a shared campaign
    /// (the others' from their last heartbeats, this node's now), else
    /// this process's.
    pub campaign_calls: u64,
    /// Coverage points of the whole campaign: every node's bitmap merged by
    /// OR in a shared campaign (as of the last sync, never below this
    /// node's own), else this process's.
    pub campaign_points: u64,
}

impl Sample {
    /// The sample with its campaign totals: `others` calls made by the
    /// other nodes of a shared campaign, `points` covered by all of them
    /// (both 0 when the campaign is not shared).
    pub fn with_campaign(mut self, others: u64, points: u64) -> Sample {
        self.campaign_calls = self.calls + others;
        self.campaign_points = self.points.max(points);
        self
    }
}

/// What a run was asked to do, kept in the journal beside its samples (a
/// report of a past run shows them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSettings {
    pub seed: u64,
    pub workers: usize,
    pub test_mode: String,
    pub seq_len: usize,
    pub test_limit: u64,
    pub shrink_limit: u64,
}

/// A metric an agent can ask for (the market-data tools' `symbol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    Calls,
    CallsPerSecond,
    CoveragePoints,
    CorpusSize,
    OpenProperties,
    Falsified,
    Sequences,
    /// Over every node of a shared campaign (this process's alone when not
    /// shared).
    CampaignCalls,
    CampaignCallsPerSecond,
    CampaignCoveragePoints,
}

impl Metric {
    pub const ALL: [Metric; 10] = [
        Metric::Calls,
        Metric::CallsPerSecond,
        Metric::CoveragePoints,
        Metric::CorpusSize,
        Metric::OpenProperties,
        Metric::Falsified,
        Metric::Sequences,
        Metric::CampaignCalls,
        Metric::CampaignCallsPerSecond,
        Metric::CampaignCoveragePoints,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Metric::Calls => "calls",
            Metric::CallsPerSecond => "calls_per_s",
            Metric::CoveragePoints => "coverage_points",
            Metric::CorpusSize => "corpus_size",
            Metric::OpenProperties => "open_properties",
            Metric::Falsified => "falsified",
            Metric::Sequences => "sequences",
            Metric::CampaignCalls => "campaign_calls",
            Metric::CampaignCallsPerSecond => "campaign_calls_per_s",
            Metric::CampaignCoveragePoints => "campaign_coverage_points",
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.as_str() == s)
    }

    /// Every name, for error messages.
    pub fn names() -> String {
        Metric::ALL.map(Metric::as_str).join(", ")
    }

    /// The metric's value at sample `s` (`prev`: the sample before, for
    /// rates).
    pub fn value(self, s: &Sample, prev: Option<&Sample>) -> f64 {
        match self {
            Metric::Calls => s.calls as f64,
            Metric::CallsPerSecond => rate(s, prev, |s| s.calls),
            Metric::CampaignCallsPerSecond => rate(s, prev, |s| s.campaign_calls),
            Metric::CampaignCalls => s.campaign_calls as f64,
            Metric::CampaignCoveragePoints => s.campaign_points as f64,
            Metric::CoveragePoints => s.points as f64,
            Metric::CorpusSize => s.corpus as f64,
            Metric::OpenProperties => s.open as f64,
            Metric::Falsified => s.falsified as f64,
            Metric::Sequences => s.sequences as f64,
        }
    }
}

/// The rate of counter `of` between `prev` and `s`, per second.
fn rate(s: &Sample, prev: Option<&Sample>, of: impl Fn(&Sample) -> u64) -> f64 {
    match prev {
        Some(p) if s.t_ms > p.t_ms => {
            of(s).saturating_sub(of(p)) as f64 * 1000.0 / (s.t_ms - p.t_ms) as f64
        }
        _ => 0.0,
    }
}

/// One time bucket of a metric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Candle {
    pub start_ms: u64,
    pub open: f64,
    pub high: f64,
    pub low: f64,
    pub close: f64,
    /// Calls executed in the bucket.
    pub volume: f64,
}

#[derive(Debug)]
struct History {
    interval_ms: u64,
    samples: Vec<Sample>,
}

/// The sampled metrics of the campaign.
#[derive(Debug)]
pub struct MetricsHistory {
    inner: RwLock<History>,
}

impl Default for MetricsHistory {
    fn default() -> Self {
        MetricsHistory {
            inner: RwLock::new(History {
                interval_ms: SAMPLE_INTERVAL.as_millis() as u64,
                samples: Vec::new(),
            }),
        }
    }
}

impl MetricsHistory {
    /// Records `s` unless the last sample is younger than the interval;
    /// returns whether it did.
    pub fn record(&self, s: Sample) -> bool {
        let mut h = self.inner.write();
        if let Some(last) = h.samples.last()
            && s.t_ms < last.t_ms + h.interval_ms
        {
            return false;
        }
        if h.samples.len() >= MAX_SAMPLES {
            let kept: Vec<Sample> = h.samples.iter().step_by(2).copied().collect();
            h.samples = kept;
            h.interval_ms *= 2;
        }
        h.samples.push(s);
        true
    }

    /// The samples so far, with `now` appended (a tool's answer is as of
    /// the call, not of the last tick).
    pub fn with_now(&self, now: Sample) -> Vec<Sample> {
        let h = self.inner.read();
        let mut v = Vec::with_capacity(h.samples.len() + 1);
        v.extend(h.samples.iter().copied());
        if v.last().is_none_or(|l| l.t_ms < now.t_ms) {
            v.push(now);
        }
        v
    }

    /// Current resolution (ms between samples).
    pub fn interval_ms(&self) -> u64 {
        self.inner.read().interval_ms
    }
}

/// The candles of `metric` over `samples` in buckets of `width_ms`, oldest
/// first; a bucket without samples is skipped.
pub fn candles(samples: &[Sample], metric: Metric, width_ms: u64) -> Vec<Candle> {
    let width = width_ms.max(1);
    let mut out: Vec<Candle> = Vec::new();
    let mut prev_calls = samples.first().map_or(0, |s| s.calls);
    for (i, s) in samples.iter().enumerate() {
        let v = metric.value(s, i.checked_sub(1).map(|j| &samples[j]));
        let start = s.t_ms - s.t_ms % width;
        let volume = s.calls.saturating_sub(prev_calls) as f64;
        prev_calls = s.calls;
        match out.last_mut() {
            Some(c) if c.start_ms == start => {
                c.high = c.high.max(v);
                c.low = c.low.min(v);
                c.close = v;
                c.volume += volume;
            }
            _ => out.push(Candle {
                start_ms: start,
                open: v,
                high: v,
                low: v,
                close: v,
                volume,
            }),
        }
    }
    out
}

/// Parses a bucket width: `250ms`, `1s`, `5m`, `1h`, `1d`.
pub fn parse_width(s: &str) -> Option<u64> {
    let split = s.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = s.split_at(split);
    let n: u64 = n.parse().ok().filter(|n| *n > 0)?;
    let ms = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(ms)
}

/// An agent's steering decision (`save_decision`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub decision_id: String,
    pub run_id: String,
    pub symbol: String,
    pub action: String,
    pub confidence: f64,
    pub opportunity_score: Option<f64>,
    pub reasoning: String,
    pub tool_calls: serde_json::Value,
    pub created_ms: u64,
}

/// Longest `reasoning` kept.
pub const MAX_REASONING: usize = 8_192;

/// The decisions of every run of this corpus directory, oldest first.
#[derive(Debug, Default)]
pub struct Decisions {
    all: RwLock<Vec<Decision>>,
}

impl Decisions {
    pub fn load(&self, old: Vec<Decision>) {
        let mut all = self.all.write();
        let mut merged = old;
        merged.append(&mut all);
        *all = merged;
    }

    pub fn push(&self, d: Decision) {
        self.all.write().push(d);
    }

    /// Newest first, filtered.
    pub fn recent(&self, symbol: Option<&str>, action: Option<&str>) -> Vec<Decision> {
        self.all
            .read()
            .iter()
            .rev()
            .filter(|d| symbol.is_none_or(|s| d.symbol == s))
            .filter(|d| action.is_none_or(|a| d.action == a))
            .cloned()
            .collect()
    }

    pub fn len(&self) -> usize {
        self.all.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The ops family's state, kept beside the campaign in
/// [`crate::campaign::FamilyData`].
#[derive(Debug, Default)]
pub struct OpsState {
    pub history: MetricsHistory,
    pub decisions: Decisions,
}

/// `YYYY-MM-DD` → Unix seconds at 00:00 UTC.
pub fn parse_date(d: &str) -> Option<u64> {
    let mut it = d.split('-');
    let (y, m, dd) = (
        it.next()?.parse::<i64>().ok()?,
        it.next()?.parse::<i64>().ok()?,
        it.next()?.parse::<i64>().ok()?,
    );
    if it.next().is_some() || !(1970..=9999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=days_in[(m - 1) as usize]).contains(&dd) {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + dd - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_since_the_epoch_and_nonsense_is_refused() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(951_868_800));
        assert_eq!(parse_date("2024-02-29"), Some(1_709_164_800));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(parse_date("2024-13-01"), None);
        assert_eq!(parse_date("1969-12-31"), None);
        assert_eq!(parse_date("2024-01-01-01"), None);
        assert_eq!(parse_date("yesterday"), None);
    }

    fn s(t_ms: u64, calls: u64, points: u64) -> Sample {
        Sample {
            t_ms,
            calls,
            points,
            ..Default::default()
        }
    }

    #[test]
    fn a_days_samples_kept_at_the_historys_resolution_stay_few() {
        // What the sampler journals: a sample each time the history keeps
        // one, one tick every 250 ms for a day.
        let h = MetricsHistory::default();
        let ticks = 24 * 3600 * 4;
        let kept = (0..ticks)
            .filter(|i| h.record(s(i * 250, i * 1000, 0)))
            .count();
        assert!(!h.record(s((ticks - 1) * 250 + 1, 0, 0)), "too young");
        assert!((50_000..55_000).contains(&kept), "{kept} rows for a day");
        assert!(h.with_now(s(ticks * 250, 0, 0)).len() <= MAX_SAMPLES + 1);
    }

    #[test]
    fn campaign_metrics_count_every_node_and_are_this_process_alone_otherwise() {
        let alone = s(1000, 500, 7).with_campaign(0, 0);
        assert_eq!((alone.campaign_calls, alone.campaign_points), (500, 7));
        // Two other nodes made 1,200 calls; all nodes together cover 9
        // points; a merged bitmap older than this node's coverage never
        // lowers it.
        let before = s(1000, 500, 7).with_campaign(1_200, 9);
        let after = s(2000, 900, 12).with_campaign(2_000, 9);
        assert_eq!(Metric::CampaignCalls.value(&before, None), 1_700.0);
        assert_eq!(Metric::CampaignCoveragePoints.value(&after, None), 12.0);
        assert_eq!(
            Metric::CampaignCallsPerSecond.value(&after, Some(&before)),
            1_200.0
        );
        assert_eq!(Metric::CallsPerSecond.value(&after, Some(&before)), 400.0);
        assert!(
            Metric::ALL
                .iter()
                .all(|m| Metric::parse(m.as_str()) == Some(*m))
        );
    }

    #[test]
    fn candles_bucket_open_high_low_close_and_volume() {
        let samples = [
            s(1000, 0, 1),
            s(1250, 100, 5),
            s(1500, 200, 3),
            s(2000, 300, 9),
            s(2250, 400, 9),
        ];
        let c = candles(&samples, Metric::CoveragePoints, 1000);
        assert_eq!(c.len(), 2);
        assert_eq!(
            (
                c[0].start_ms,
                c[0].open,
                c[0].high,
                c[0].low,
                c[0].close,
                c[0].volume
            ),
            (1000, 1.0, 5.0, 1.0, 3.0, 200.0)
        );
        assert_eq!((c[1].open, c[1].close, c[1].volume), (9.0, 9.0, 200.0));
        let rate = candles(&samples, Metric::CallsPerSecond, 1000);
        assert_eq!(rate[0].high, 400.0);
        assert_eq!(rate[1].low, 200.0);
    }

    #[test]
    fn history_halves_its_resolution_when_full() {
        let h = MetricsHistory::default();
        let step = SAMPLE_INTERVAL.as_millis() as u64;
        for i in 0..(MAX_SAMPLES as u64 + 1) {
            h.record(s(i * step, i, 0));
        }
        assert_eq!(h.interval_ms(), 2 * step);
        let v = h.with_now(s(u64::MAX / 2, 0, 0));
        assert!(v.len() <= MAX_SAMPLES / 2 + 2, "{}", v.len());
        // Too soon after the last one: not kept.
        let before = h.with_now(s(0, 0, 0)).len();
        h.record(s((MAX_SAMPLES as u64) * step + 1, 0, 0));
        assert_eq!(h.with_now(s(0, 0, 0)).len(), before);
    }

    #[test]
    fn widths_parse() {
        assert_eq!(parse_width("250ms"), Some(250));
        assert_eq!(parse_width("1s"), Some(1000));
        assert_eq!(parse_width("5m"), Some(300_000));
        assert_eq!(parse_width("4h"), Some(14_400_000));
        assert_eq!(parse_width("1d"), Some(86_400_000));
        for bad in ["", "m", "0s", "5y", "1.5h", "-1m"] {
            assert_eq!(parse_width(bad), None, "{bad}");
        }
    }
}
