//! A randomized, seeded simulation of the real sync. Each case draws a sheet of people and a
//! rule for removed rows (`keep`, `stop`, `delete`), then, round after round, changes the sheet
//! as a CRM export changes (names corrected, cities emptied or moved, people leaving, coming
//! back, new ones, numbers put on the do-not-call list) and syncs it with the real binary
//! against a sandbox with random faults (5xx before and after the commit, dropped answers),
//! killing runs with SIGKILL at random points; each round ends with runs on a fault-free
//! service until one finishes. After every round, each person's lead must be what the sheet
//! and the rule say:
//! - in the sheet and callable: exactly one lead, with the row's name and city, `created`;
//! - in the sheet, on the do-not-call list: its lead (if one was ever made) `completed`;
//! - gone from the sheet: its lead as the rule says (kept as it was, `completed`, or gone);
//!
//! and no other lead is on the service.
//!
//! `LEADSYNC_SYNC_SIM_CASES` (default 4) and `LEADSYNC_SYNC_SIM_SEED` choose the cases; a
//! failing case prints its seed, replayed alone with `LEADSYNC_SYNC_SIM_CASES=1`.

use std::collections::BTreeMap;
use std::time::Duration;

use leadsync::sandbox::Faults;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::exactly_once::{Case, kill, leads};
use crate::support::{ALICE, TestSandbox, write};

const DEFAULT_CASES: u64 = 4;
const DEFAULT_SEED: u64 = 35_000;
const ROUNDS: usize = 3;
/// Fault-free runs a round may take to finish.
const FINISHING_RUNS: usize = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Person {
    name: String,
    city: String,
    phone: String,
    present: bool,
    do_not_call: bool,
}

/// What the service should hold for a person: name, city, status.
type Expected = Option<(String, String, &'static str)>;

#[test]
fn random_changes_faults_and_kills_leave_each_lead_as_its_row_says() {
    let cases = env_u64("LEADSYNC_SYNC_SIM_CASES", DEFAULT_CASES);
    let first = env_u64("LEADSYNC_SYNC_SIM_SEED", DEFAULT_SEED);
    for seed in first..first + cases {
        let outcome = std::panic::catch_unwind(|| run_case(seed));
        if let Err(panic) = outcome {
            eprintln!(
                "sync simulation case {seed} failed: replay with LEADSYNC_SYNC_SIM_SEED={seed} LEADSYNC_SYNC_SIM_CASES=1"
            );
            std::panic::resume_unwind(panic);
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

struct Sim {
    seed: u64,
    rng: StdRng,
    case: Case,
    people: Vec<Person>,
    rule: &'static str,
    /// What each person's lead should be, by number.
    expected: BTreeMap<String, Expected>,
}

fn run_case(seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let rule = ["keep", "stop", "delete"][rng.random_range(0..3)];
    let count = rng.random_range(6..16);
    let people = (0..count).map(|i| person(seed, i)).collect();
    let mut sim = Sim { seed, rng, case: Case::new(), people, rule, expected: BTreeMap::new() };
    sim.write_mapping();
    for round in 0..=ROUNDS {
        if round > 0 {
            sim.change_the_sheet();
        }
        sim.write_sheet();
        if round > 0 {
            sim.faulty_runs();
        }
        sim.finish_round(seed, round);
        sim.expect_after_round();
        sim.check(seed, round);
    }
}

fn person(seed: u64, i: usize) -> Person {
    Person {
        name: format!("Person {i}"),
        city: ["Köln", "Bonn", ""][i % 3].to_string(),
        phone: format!("+4915150{:03}{i:03}", seed % 1000),
        present: true,
        do_not_call: false,
    }
}

impl Sim {
    fn write_mapping(&self) {
        let text = format!(
            "phone = \"Telefon\"\ncampaign = 10\non_removed = \"{}\"\nmax_removed = 1000\nsuppress = [\"dnc.csv\"]\n[variables]\ncustomer_name = \"Name\"\ncity = \"Stadt\"\n",
            self.rule
        );
        write(self.case.dir.path(), "mapping.toml", &text);
    }

    fn write_sheet(&self) {
        let mut sheet = String::from("Name,Stadt,Telefon\n");
        let mut dnc = String::from("Telefon\n");
        for p in &self.people {
            if p.present {
                sheet.push_str(&format!("{},{},{}\n", p.name, p.city, p.phone));
            }
            if p.do_not_call {
                dnc.push_str(&format!("{}\n", p.phone));
            }
        }
        write(self.case.dir.path(), "export.csv", &sheet);
        write(self.case.dir.path(), "dnc.csv", &dnc);
    }

    /// A week of a CRM: names corrected, cities changed or emptied, people leaving and coming
    /// back, new people, numbers put on the do-not-call list. The first person always stays,
    /// callable: a sheet with no valid row removes nothing, by design.
    fn change_the_sheet(&mut self) {
        let count = self.people.len();
        for i in 0..count {
            let rng = &mut self.rng;
            let p = &mut self.people[i];
            if rng.random_bool(0.25) {
                let base = p.name.split(" (").next().unwrap_or_default().to_string();
                p.name = format!("{base} {}", ["(neu)", "(korr.)"][rng.random_range(0..2)]);
            }
            if rng.random_bool(0.2) {
                p.city = ["Köln", "Bonn", "", "Essen"][rng.random_range(0..4)].to_string();
            }
            if i > 0 && rng.random_bool(0.15) {
                p.present = !p.present;
            }
            if i > 0 && rng.random_bool(0.08) {
                p.do_not_call = true;
            }
        }
        for _ in 0..self.rng.random_range(0..3) {
            let i = self.people.len();
            self.people.push(person(self.seed, i));
        }
    }

    fn sync_args(&self) -> Vec<String> {
        let path = |name: &str| self.case.path(name).display().to_string();
        let mut args = vec!["sync".to_string(), path("export.csv"), "--mapping".into()];
        args.extend([path("mapping.toml"), "--rate".into(), "0".into()]);
        // A short wait for each answer: a write in doubt is settled after it, so the faults
        // cost seconds, not minutes.
        args.extend(["--timeout".into(), "2".into()]);
        // Duplicates allowed: a change sent as a create would show as a second lead.
        args.push("--allow-duplicates".into());
        args
    }

    /// One or two runs on a faulty service, each killed at a random moment, then one to its
    /// end (or its failure) on it.
    fn faulty_runs(&mut self) {
        let faults = self.faults();
        let sb = self.case.service(faults);
        let args = self.sync_args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for _ in 0..self.rng.random_range(1..3) {
            let child = self.case.spawn(&sb, &args);
            std::thread::sleep(Duration::from_millis(self.rng.random_range(10..600)));
            kill(child);
        }
        let mut cli = self.case.cli(&sb, ALICE, &args);
        let _ = cli.cmd.output().unwrap();
    }

    fn faults(&mut self) -> Faults {
        let rng = &mut self.rng;
        let mut rate = || [0.0, 0.1, 0.25][rng.random_range(0..3)];
        Faults {
            fail_rate: rate(),
            drop_rate: rate(),
            commit_fail_rate: rate(),
            latency: Duration::from_millis(rng.random_range(0..10)),
            seed: Some(rng.random()),
            ..Faults::default()
        }
    }

    /// Fault-free runs until one finishes with nothing left to do.
    fn finish_round(&mut self, seed: u64, round: usize) {
        let sb = self.case.service(Faults::default());
        let args = self.sync_args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        for _ in 0..FINISHING_RUNS {
            let mut cli = self.case.cli(&sb, ALICE, &args);
            let output = cli.cmd.output().unwrap();
            let err = String::from_utf8_lossy(&output.stderr);
            let done =
                matches!(output.status.code(), Some(0) | Some(5)) && !err.contains(" failed");
            if done {
                return;
            }
        }
        panic!("case {seed}, round {round}: no fault-free run finished");
    }

    /// What the round must have left on the service for each person.
    fn expect_after_round(&mut self) {
        for p in &self.people {
            let before = self.expected.get(&p.phone).cloned().flatten();
            let now: Expected = match (p.present, p.do_not_call, self.rule) {
                (true, false, _) => Some((p.name.clone(), p.city.clone(), "created")),
                // Refused rows are not updated: the lead keeps what it said, and stops.
                (true, true, _) => before.map(|(n, c, _)| (n, c, "completed")),
                (false, _, "keep") => before,
                (false, _, "stop") => before.map(|(n, c, _)| (n, c, "completed")),
                (false, _, _) => None,
            };
            self.expected.insert(p.phone.clone(), now);
        }
    }

    fn check(&self, seed: u64, round: usize) {
        let sb = TestSandbox::on_db(&self.case.path("service.db"), Faults::default());
        let mut found: BTreeMap<String, Vec<(String, String, String)>> = BTreeMap::new();
        for lead in leads(&sb, ALICE) {
            let var = |n: &str| lead.variables.get(n).cloned().unwrap_or_default();
            let seen = (var("customer_name"), var("city"), lead.status.clone());
            found.entry(lead.phone_number.clone()).or_default().push(seen);
        }
        let mut wrong = Vec::new();
        for (phone, expected) in &self.expected {
            let have = found.remove(phone).unwrap_or_default();
            let want: Vec<(String, String, String)> =
                expected.iter().map(|(n, c, s)| (n.clone(), c.clone(), s.to_string())).collect();
            if have != want {
                wrong.push(format!("{phone}: have {have:?}, want {want:?}"));
            }
        }
        for (phone, have) in found {
            wrong.push(format!("{phone}: have {have:?}, no such person"));
        }
        assert!(
            wrong.is_empty(),
            "case {seed} (on_removed = {}), round {round}:\n{}",
            self.rule,
            wrong.join("\n")
        );
    }
}
