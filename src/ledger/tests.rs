use super::*;

fn run(dir: &Path, front: &str) -> Ledger {
    let origin = RunOrigin { source: "leads.csv".into(), sheet: None, front: front.into() };
    Ledger::open(dir, "sandbox", origin).unwrap()
}

fn intent(key: u64, commit_by: u64, checked_at: Option<u64>) -> Intent<'static> {
    Intent {
        key,
        campaign_id: 10,
        phone: "+4915111",
        sent_key: key,
        keyed: true,
        commit_by,
        row: 2,
        checked_at,
    }
}

fn created(key: u64, lead_id: u64) -> Settled {
    Settled {
        key,
        campaign_id: 10,
        phone: "+4915111".into(),
        lead_id: Some(lead_id),
        digest: 9,
        made: true,
        contacts: 0,
        row: 2,
        keep_origin: false,
    }
}

#[test]
fn one_identity_is_claimed_by_one_run_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cli, mut ui) = (run(dir.path(), "import"), run(dir.path(), "ui"));
    let far = now_ms() + 60_000;
    assert_eq!(cli.claim(&[], &[intent(1, far, None)]).unwrap(), [Granted::Go]);
    assert_eq!(cli.lookup(1).unwrap(), Known::Ours);
    let Granted::UnderWay(held) = ui.claim(&[], &[intent(1, far, None)]).unwrap().remove(0) else {
        panic!("another run's claim must hold");
    };
    assert_eq!(held.origin.front, "import");
    // A lead list read before the claim's deadline proves nothing.
    let early = ui.claim(&[], &[intent(1, far, Some(far - 1))]).unwrap();
    assert!(matches!(early[0], Granted::UnderWay(_)));
    // The import learns its lead: the browser is told where it came from.
    cli.record(&[created(1, 77)]).unwrap();
    let sent = ui.claim(&[], &[intent(1, far, None)]).unwrap();
    assert!(
        matches!(&sent[0], Granted::Sent { lead_id: Some(77), origin } if origin.front == "import")
    );
}

#[test]
fn a_dead_runs_claim_is_taken_over_only_after_a_list_read_past_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mut dead = run(dir.path(), "sync");
    dead.claim(&[], &[intent(5, 1_000, None)]).unwrap();
    drop(dead);
    let mut next = run(dir.path(), "sync");
    assert_eq!(next.claimed_by_others().unwrap().into_iter().collect::<Vec<_>>(), [5]);
    assert!(matches!(next.lookup(5).unwrap(), Known::Claimed(Held { commit_by: 1_000, .. })));
    assert!(matches!(next.claim(&[], &[intent(5, 9, None)]).unwrap()[0], Granted::UnderWay(_)));
    assert_eq!(next.claim(&[], &[intent(5, 9, Some(1_000))]).unwrap(), [Granted::Go]);
    next.release(&[5]).unwrap();
    assert_eq!(next.lookup(5).unwrap(), Known::Unknown, "a refused write leaves no claim");
}

#[test]
fn a_lost_ledger_learns_the_list_once_per_account() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = run(dir.path(), "import");
    let names = vec!["user:1".to_string(), "campaign:10".to_string()];
    assert!(!ledger.knows_account(&names).unwrap());
    ledger.learn_list(&names, [(3, 10, "+4915111".to_string(), 41)].into_iter()).unwrap();
    assert!(ledger.knows_account(&["campaign:10".to_string()]).unwrap());
    assert!(matches!(ledger.lookup(3).unwrap(), Known::Sent { lead_id: Some(41), .. }));
}

#[test]
fn journals_of_earlier_versions_are_read_in_once() {
    let dir = tempfile::tempdir().unwrap();
    let journals = dir.path().join("journals");
    std::fs::create_dir_all(&journals).unwrap();
    // A journal of an older version: its keys name places, not identities.
    let header =
        crate::journal::RunHeader { identity_keys: false, ..crate::journal::tests::header() };
    let lines = [
        serde_json::to_string(&header).unwrap(),
        r#"{"event":"attempt","row":2,"phone":"+4915111","campaign_id":10,"fp":"01"}"#.into(),
        r#"{"event":"outcome","row":2,"status":"created","fp":"01","lead_id":70}"#.into(),
        r#"{"event":"attempt","row":3,"phone":"+4915122","campaign_id":10,"fp":"02","key":"00000000000000aa","keyed":true}"#.into(),
    ];
    std::fs::write(journals.join("old.jsonl"), lines.join("\n") + "\n").unwrap();
    let ledger = Ledger::open(
        dir.path(),
        &header.service,
        RunOrigin { front: "import".into(), ..RunOrigin::default() },
    )
    .unwrap();
    let anna = identity::identity_key(10, identity::Who::Number("+4915111", 0));
    assert!(matches!(ledger.lookup(anna).unwrap(), Known::Sent { lead_id: Some(70), .. }));
    let bob = identity::identity_key(10, identity::Who::Number("+4915122", 0));
    let Known::Claimed(held) = ledger.lookup(bob).unwrap() else { panic!("bob is in doubt") };
    assert_eq!((held.sent_key, held.keyed), (0xaa, true), "matched by the key it was sent with");
}

/// Prints what opening a ledger of a million identities, and looking them up, costs.
#[test]
#[ignore = "a measurement: cargo test --release --lib a_million_identities -- --ignored --nocapture"]
fn a_million_identities_open_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let key =
        |i: u64| identity::identity_key(10, identity::Who::Number(&format!("+49151{i:08}"), 0));
    let names = vec!["user:1".to_string()];
    let leads = (0..1_000_000u64).map(|i| (key(i), 10, format!("+49151{i:08}"), i + 1));
    let started = std::time::Instant::now();
    run(dir.path(), "import").learn_list(&names, leads).unwrap();
    let learnt = started.elapsed();
    let started = std::time::Instant::now();
    let ledger = run(dir.path(), "sync");
    assert!(ledger.knows_account(&names).unwrap());
    assert!(ledger.claimed_by_others().unwrap().is_empty());
    let opened = started.elapsed();
    let started = std::time::Instant::now();
    for i in (0..1_000_000u64).step_by(10) {
        assert!(matches!(ledger.lookup(key(i)).unwrap(), Known::Sent { .. }));
    }
    let looked = started.elapsed();
    let size = std::fs::metadata(dir.path().join(FILE)).unwrap().len();
    println!(
        "1,000,000 identities: learnt in {learnt:?}, opened (with its checks) in {opened:?}, \
         100,000 lookups in {looked:?}, {:.1} MiB on disk",
        size as f64 / (1 << 20) as f64
    );
}

#[test]
fn a_dead_runs_keyed_claims_are_settled_by_one_lead_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut dead = run(dir.path(), "import");
    let mut keyless = intent(3, 1_000, None);
    keyless.keyed = false;
    dead.claim(&[], &[intent(1, 1_000, None), intent(2, 1_000, None), keyless]).unwrap();
    dead.claim(&[], &[intent(4, 5_000, None)]).unwrap();
    drop(dead);
    let mut next = run(dir.path(), "sync");
    // A list asked for at 2,000: claims 1 and 2 could no longer commit; 4 still could.
    let settled = next.settle_stale(2_000, |key| (key == 1).then_some(71)).unwrap();
    assert_eq!(settled, 2);
    assert!(matches!(next.lookup(1).unwrap(), Known::Sent { lead_id: Some(71), .. }), "found");
    assert_eq!(next.lookup(2).unwrap(), Known::Unknown, "never arrived: the claim goes");
    assert!(matches!(next.lookup(3).unwrap(), Known::Claimed(_)), "keyless: left to its row");
    assert!(matches!(next.lookup(4).unwrap(), Known::Claimed(_)), "may still commit");
}

/// A lookup is on the path of every row sent: its statements are prepared once, not at each
/// binding (a join of these tables was re-prepared every time).
#[test]
fn a_lookup_never_prepares_its_statements_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = run(dir.path(), "import");
    let far = now_ms() + 60_000;
    ledger.claim(&[created(1, 7)], &[intent(2, far, None)]).unwrap();
    for key in 0..50 {
        ledger.lookup(key).unwrap();
    }
    let sql = "SELECT lead_id, origin, row, at FROM leads WHERE service = ?1 AND key = ?2";
    let statement = ledger.conn.prepare_cached(sql).unwrap();
    let again = statement.get_status(rusqlite::StatementStatus::RePrepare);
    let runs = statement.get_status(rusqlite::StatementStatus::Run);
    assert!(runs >= 49, "the lookup no longer uses `{sql}`");
    assert!(again <= 2, "`{sql}` was prepared again {again} times in {runs} runs");
}

/// Other runs' claims are read again only when another connection wrote: a run alone reads
/// them once, however many rows it claims; a write by another run is seen at the next claim.
#[test]
fn other_runs_claims_are_read_again_only_after_they_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (mut cli, mut ui) = (run(dir.path(), "import"), run(dir.path(), "ui"));
    let far = now_ms() + 60_000;
    for key in 1..=20 {
        assert_eq!(cli.claim(&[], &[intent(key, far, None)]).unwrap(), [Granted::Go]);
    }
    let scan = "SELECT owner, seq, key, sent_key, keyed, commit_by, origin, row, at FROM claims
             WHERE service = ?1 AND owner != ?2";
    let reads = cli.conn.prepare_cached(scan).unwrap().get_status(rusqlite::StatementStatus::Run);
    assert_eq!(reads, 1, "a run alone read the claims {reads} times for 20 batches");
    assert_eq!(ui.claim(&[], &[intent(30, far, None)]).unwrap(), [Granted::Go]);
    let Granted::UnderWay(_) = cli.claim(&[], &[intent(30, far, None)]).unwrap().remove(0) else {
        panic!("a claim made by another run since the last read was not seen");
    };
    let Known::Claimed(held) = ui.lookup(5).unwrap() else {
        panic!("the other run's claim of 5 was not seen");
    };
    assert_eq!(held.commit_by, far);
}

/// A ledger written by the first schema (every row with its service and origin spelt out) is
/// moved into this one when opened: what it knew stays known, claims in doubt stay held.
#[test]
fn a_ledger_of_the_first_schema_is_carried_over() {
    let dir = tempfile::tempdir().unwrap();
    let old = Connection::open(dir.path().join(FILE)).unwrap();
    old.execute_batch(
        "CREATE TABLE leads (service TEXT NOT NULL, key INTEGER NOT NULL,
            campaign_id INTEGER NOT NULL, phone TEXT NOT NULL, lead_id INTEGER, digest INTEGER,
            source TEXT NOT NULL, sheet TEXT, row INTEGER NOT NULL, front TEXT NOT NULL,
            at INTEGER NOT NULL, PRIMARY KEY (service, key)) WITHOUT ROWID;
        CREATE TABLE claims (service TEXT NOT NULL, key INTEGER NOT NULL,
            campaign_id INTEGER NOT NULL, phone TEXT NOT NULL, source TEXT NOT NULL, sheet TEXT,
            row INTEGER NOT NULL, front TEXT NOT NULL, at INTEGER NOT NULL, owner INTEGER NOT NULL,
            sent_key INTEGER NOT NULL, keyed INTEGER NOT NULL, commit_by INTEGER NOT NULL,
            PRIMARY KEY (service, key)) WITHOUT ROWID;
        CREATE TABLE accounts (service TEXT NOT NULL, name TEXT NOT NULL,
            listed_at INTEGER NOT NULL, PRIMARY KEY (service, name)) WITHOUT ROWID;
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('journals_read', '1');
        INSERT INTO leads VALUES ('sandbox', 1, 10, '+4915111', 77, 9, 'Kunden.xlsx', 'Mai', 5,
            'ui', 1000);
        INSERT INTO leads VALUES ('other', 1, 10, '+4915111', 78, 9, 'b.csv', NULL, 6, 'sync', 1);
        INSERT INTO claims VALUES ('sandbox', 2, 10, '+4915112', 'leads.csv', NULL, 3, 'import',
            2000, 42, 2, 1, 4000);
        PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(old);
    let ledger = run(dir.path(), "sync");
    let origin = Origin {
        source: "Kunden.xlsx".into(),
        sheet: Some("Mai".into()),
        row: 5,
        front: "ui".into(),
        at: 1000,
    };
    assert_eq!(ledger.lookup(1).unwrap(), Known::Sent { lead_id: Some(77), origin });
    let Known::Claimed(held) = ledger.lookup(2).unwrap() else { panic!("the claim was lost") };
    assert_eq!((held.sent_key, held.keyed, held.commit_by), (2, true, 4000));
    assert_eq!((held.origin.source.as_str(), held.origin.sheet.clone()), ("leads.csv", None));
    let version: i64 = ledger.conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA);
}

/// A ledger of schema 2 gains what a sync needs: its leads are made by leadsync (unless
/// learnt from the list), not stopped, and their old digests (of the whole request) are gone.
#[test]
fn a_ledger_of_the_second_schema_is_carried_over_without_its_digests() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = run(dir.path(), "import");
    ledger.record(&[created(1, 77)]).unwrap();
    ledger
        .learn_list(&["user:1".into()], [(2, 10, "+4915122".to_string(), 78)].into_iter())
        .unwrap();
    drop(ledger);
    let old = Connection::open(dir.path().join(FILE)).unwrap();
    old.execute_batch(
        "ALTER TABLE leads DROP COLUMN stopped;
        ALTER TABLE leads DROP COLUMN made;
        ALTER TABLE leads DROP COLUMN contacts;
        DROP TABLE changes;
        PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(old);
    let ledger = run(dir.path(), "sync");
    let made = ledger.recorded(1).unwrap().unwrap();
    assert_eq!((made.lead_id, made.digest, made.made, made.stopped), (Some(77), None, true, false));
    let listed = ledger.recorded(2).unwrap().unwrap();
    assert!(!listed.made, "learnt from the list: never removed by a sync");
    let from_source = ledger.recorded_from(&["leads.csv".into()]).unwrap();
    assert_eq!(from_source.iter().map(|r| r.key).collect::<Vec<_>>(), vec![1]);
}

/// A change is begun before its request and settled after it; one never settled is counted
/// as in doubt, and a stop, an update and a delete each leave what a sync reads next.
#[test]
fn changes_are_begun_then_settled_and_unsettled_ones_are_in_doubt() {
    let dir = tempfile::tempdir().unwrap();
    let mut ledger = run(dir.path(), "sync");
    ledger.record(&[created(1, 77), created(2, 78), created(3, 79)]).unwrap();
    ledger.change_begins(1, "update", 77).unwrap();
    ledger.change_begins(2, "stop", 78).unwrap();
    ledger.change_begins(3, "delete", 79).unwrap();
    assert_eq!(ledger.changes_in_doubt().unwrap(), 3);
    let updated = ChangeDone::Updated { digest: 5, phone: "+4915199".into() };
    ledger.change_done(1, &updated).unwrap();
    ledger.change_done(2, &ChangeDone::Stopped).unwrap();
    assert_eq!(ledger.changes_in_doubt().unwrap(), 1, "the delete is still in doubt");
    ledger.change_done(3, &ChangeDone::Deleted).unwrap();
    let one = ledger.recorded(1).unwrap().unwrap();
    assert_eq!((one.digest, one.phone.as_str()), (Some(5), "+4915199"));
    assert!(ledger.recorded(2).unwrap().unwrap().stopped);
    assert_eq!(ledger.recorded(3).unwrap(), None, "deleted: the identity is free again");
    assert_eq!(ledger.changes_in_doubt().unwrap(), 0);
}
