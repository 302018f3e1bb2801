//! What every `wharf bench` table shares: medians and percentiles, the machine the run was on, and aligned Markdown
//! tables (so they paste into BENCHMARKS.md as they are).

use std::time::Duration;

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The median of unsorted durations.
pub fn median_duration(values: &[Duration]) -> Duration {
    let mut sorted = values.to_vec();
    sorted.sort();
    percentile(&sorted, 0.5)
}

/// Nearest-rank percentile of sorted durations: always a value that was measured.
pub fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn millis(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

pub fn times(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}x")).unwrap_or_else(|| "-".into())
}

pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub kernel: String,
    pub load: String,
}

impl Machine {
    pub fn probe() -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let cpu = read("/proc/cpuinfo")
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(0);
        let or_unknown = |s: String| if s.is_empty() { "unknown".into() } else { s };
        let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
        let load = read("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        Machine {
            cpu,
            cores,
            kernel: or_unknown(kernel),
            load: or_unknown(load),
        }
    }

    /// One line; the load average is read again, so a table printed at the end says what the run ended under.
    pub fn describe(&self) -> String {
        let end = Machine::probe().load;
        format!(
            "machine: {}, {} cores, Linux {}, load average {} at start, {} at the end",
            self.cpu, self.cores, self.kernel, self.load, end
        )
    }
}

/// A Markdown table padded to its widest cells (counted in chars, for the non-ASCII a CPU name may hold).
pub fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let padded: Vec<String> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| format!("{:<w$}", cells.get(i).map(String::as_str).unwrap_or("")))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        out.push_str(&line(row));
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&format!("|-{}-|\n", rule.join("-|-")));
        }
    }
    out
}

/// Header cells as owned strings.
pub fn header(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let sorted: Vec<Duration> = (1..=10).map(ms).collect();
        assert_eq!(percentile(&sorted, 0.5), ms(5));
        assert_eq!(percentile(&sorted, 0.9), ms(9));
        assert_eq!(percentile(&sorted[..1], 0.9), ms(1));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
        assert_eq!(median_duration(&[ms(9), ms(1), ms(5)]), ms(5));
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[1.0, 2.0, 4.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn table_lines_are_padded_to_the_widest_cell() {
        let rows = vec![header(&["a", "bb"]), vec!["ccc".into(), "é".into()]];
        assert_eq!(table(&rows), "| a   | bb |\n|-----|----|\n| ccc | é  |\n");
    }
}
