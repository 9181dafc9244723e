//! Every word the browser front shows, in English and German, in one place: a page takes a
//! [`Text`] and never writes a sentence of its own, so a missing translation is a compile error
//! (both languages are values of the same struct) rather than an English word on a German page.

use crate::phone::NumberType;
use crate::row::{Lang, count, percent, plural, rate};

/// The strings of one language. Texts with a value in them are functions.
pub struct Text {
    /// The language these words are in: the library's words (reasons, row messages, numbers)
    /// are asked for in it.
    pub lang: crate::row::Lang,
    /// The `lang` attribute of the page.
    pub code: &'static str,
    pub app: &'static str,
    pub steps_label: &'static str,
    pub steps: [&'static str; 6],
    pub language: &'static str,
    /// The other language's name, written in that language.
    pub other_language: &'static str,
    pub service: &'static str,
    pub no_service: &'static str,
    pub sandbox: &'static str,
    pub error: &'static str,

    pub source_title: &'static str,
    pub source_intro: &'static str,
    pub upload_legend: &'static str,
    pub upload_label: &'static str,
    pub upload_hint: fn(u64) -> String,
    pub upload_button: &'static str,
    pub uploading: &'static str,
    pub location_legend: &'static str,
    pub location_label: &'static str,
    pub location_hint: &'static str,
    pub location_button: &'static str,
    pub no_file_chosen: &'static str,
    pub too_large: fn(u64) -> String,
    pub no_such_file: fn(&str) -> String,
    pub upload_failed: &'static str,

    pub reading_title: &'static str,
    pub reading_intro: &'static str,
    pub detected: &'static str,
    pub file: &'static str,
    pub format: &'static str,
    pub encoding: &'static str,
    pub delimiter: &'static str,
    pub sheet: &'static str,
    pub header_row: &'static str,
    pub columns: &'static str,
    pub automatic: &'static str,
    pub comma: &'static str,
    pub semicolon: &'static str,
    pub tab: &'static str,
    pub pipe: &'static str,
    pub change_legend: &'static str,
    pub encoding_hint: &'static str,
    pub header_row_hint: &'static str,
    pub header_row_invalid: &'static str,
    pub apply: &'static str,
    pub detect_again: &'static str,
    pub first_rows: fn(usize) -> String,
    pub row: &'static str,
    pub use_as_header: &'static str,
    pub use_this_row: &'static str,
    pub header_row_is: fn(u64) -> String,
    pub rows_above: &'static str,
    pub cells: &'static str,
    pub use_row_as_header: fn(u64) -> String,
    pub no_data_rows: &'static str,
    pub cannot_read: &'static str,
    pub other_file: &'static str,
    pub next_mapping: &'static str,
    pub unknown_source: &'static str,

    pub mapping_title: &'static str,
    pub mapping_intro: &'static str,
    pub column: &'static str,
    pub role: &'static str,
    pub first_value: &'static str,
    pub role_phone: &'static str,
    pub role_secondary: &'static str,
    pub role_campaign: &'static str,
    pub role_country: &'static str,
    pub role_consent: &'static str,
    pub role_record_id: &'static str,
    pub role_ignored: &'static str,
    pub role_variable_any: &'static str,
    pub variable_name: &'static str,
    pub variable_name_of: fn(&str) -> String,
    pub update_preview: &'static str,
    pub never_call_title: &'static str,
    pub never_call_intro: &'static str,
    pub never_call_empty: &'static str,
    pub never_call_number: &'static str,
    pub never_call_added: &'static str,
    pub never_call_from: &'static str,
    pub never_call_remove: fn(&str) -> String,
    pub never_call_add_label: &'static str,
    pub never_call_add: &'static str,
    pub never_call_typed: &'static str,
    pub never_call_not_a_number: fn(&str) -> String,
    pub never_call_row: &'static str,
    pub never_call_row_hint: fn(&str) -> String,
    pub never_call_note: fn(&str, u64) -> String,
    pub never_call_no_number: &'static str,
    pub never_call_no_service: &'static str,
    pub never_call_failed: &'static str,
    pub campaign_column_unknown: fn(&str, &str) -> String,
    pub campaign_choose: &'static str,
    pub save_name_missing: &'static str,
    pub save_failed: &'static str,
    pub preview_title: &'static str,
    pub assistant_label: &'static str,
    pub assistant_none: &'static str,
    pub assistant_says: fn(&str) -> String,
    pub row_says: fn(u64) -> String,
    pub missing_variable: fn(&str) -> String,
    pub saved_fit: &'static str,
    pub use_saved: fn(&str) -> String,
    pub keep_legend: &'static str,
    pub download_mapping: &'static str,
    pub save_name: &'static str,
    pub save_mapping: &'static str,
    pub no_phone_column: &'static str,
    pub back_reading: &'static str,
    pub next_later: &'static str,
    pub check_legend: &'static str,
    pub campaign_label: &'static str,
    pub campaign_hint: &'static str,
    pub campaign_from_column: fn(&str) -> String,
    pub region_label: &'static str,
    pub region_hint: &'static str,
    pub check_button: &'static str,
    pub allow_duplicates: &'static str,
    pub checking: &'static str,

    pub check_title: &'static str,
    pub send_title: &'static str,
    pub results_title: &'static str,
    pub rows_so_far: fn(u64) -> String,
    /// Rows done, of how many, the seconds left if known, rows a second.
    pub progress_line: fn(u64, u64, Option<u64>, f64) -> String,
    pub refresh: &'static str,
    pub run_failed: &'static str,
    pub counts: &'static str,
    /// A row status as the JSON report spells it, in words.
    pub status_name: fn(&str) -> &'static str,
    pub reasons_title: &'static str,
    pub reason: &'static str,
    pub rows_count: &'static str,
    pub what_to_do: &'static str,
    pub rows_title: &'static str,
    pub status: &'static str,
    pub all_statuses: &'static str,
    pub all_reasons: &'static str,
    pub search: &'static str,
    pub show: &'static str,
    pub next_rows: &'static str,
    pub first_rows_link: &'static str,
    pub no_rows_match: &'static str,
    pub searched_to: fn(u64) -> String,
    pub number: &'static str,
    pub variables: &'static str,
    pub problems: &'static str,
    pub downloads: &'static str,
    pub download_names: [&'static str; 3],
    pub send_legend: &'static str,
    pub send_plan: fn(u64, &str, f64) -> String,
    pub send_button: fn(u64) -> String,
    /// What a send will change of the leads sent before: (changed, to stop, unchanged).
    pub changes_plan: fn(u64, u64, u64) -> String,
    /// The box that stops the leads of people whose rows now say no: (how many).
    pub stop_refused: fn(u64) -> String,
    /// The button of a send that only updates leads sent before: (how many).
    pub update_button: fn(u64) -> String,
    pub nothing_to_send: &'static str,
    pub no_service_to_send: &'static str,
    pub stop_button: &'static str,
    pub stopping: &'static str,
    pub stopped: &'static str,
    pub paused: fn(u64) -> String,
    pub check_not_finished: &'static str,
    pub check_not_usable: &'static str,
    pub sent_already: &'static str,
    pub send_under_way: &'static str,
    pub see_results: &'static str,
    pub results_sentence: fn(u64, Option<&str>, u64, u64) -> String,
    pub for_it: &'static str,
    pub sent_no_changes: &'static str,
    pub delete_run: &'static str,
    pub delete_run_of: fn(&str) -> String,
    pub run_not_deleted: &'static str,
    pub space_used: fn(u64, u64) -> String,
    pub too_many_rows: fn(u64) -> String,
    pub not_a_country: fn(&str) -> String,
    pub fixes_offered: fn(u64, &str, &str, &str) -> String,
    pub fixes_apply: &'static str,
    pub sent_elsewhere: &'static str,
    pub report_file: fn(&str) -> String,
    pub fix_file: fn(&str) -> String,
    pub corrected_file: fn(&str) -> String,
    pub second_number: fn(&str) -> String,
    pub send_rest: &'static str,
    pub journal_note: fn(&str) -> String,
    pub back_mapping: &'static str,

    pub load_legend: &'static str,
    pub load_label: &'static str,
    pub load_button: &'static str,
    pub mapping_file_invalid: fn(&str) -> String,
    pub callable_legend: &'static str,
    pub countries_label: &'static str,
    pub countries_hint: &'static str,
    pub block_legend: &'static str,
    /// A kind of number in words.
    pub number_kind: fn(NumberType) -> &'static str,
    pub consent_values_label: fn(&str) -> String,
    pub suppress_label: &'static str,
    pub suppress_hint: &'static str,
    pub suppress_button: &'static str,
    pub suppress_in_use: fn(&str) -> String,
    pub runs_title: &'static str,
    pub run_running: &'static str,
    pub run_stopped: &'static str,
    pub run_done: &'static str,
    pub minutes_ago: fn(u64) -> String,
    pub edit_column: &'static str,
    pub edit_link: fn(u64) -> String,
    pub row_title: fn(u64) -> String,
    pub row_intro: &'static str,
    pub in_file: &'static str,
    pub value_to_use: &'static str,
    pub save_row: &'static str,
    pub row_saved: &'static str,
    pub exclude_row: &'static str,
    pub include_row: &'static str,
    pub row_is_excluded: &'static str,
    pub back_rows: &'static str,
    pub row_not_found: &'static str,
    pub only_finished_checks: &'static str,
    pub exclude_all: fn(u64) -> String,
    pub country_for_rows: &'static str,
    pub set_country: &'static str,
    pub recheck: &'static str,
    pub edits_so_far: fn(usize, usize) -> String,
    pub duplicates_after_edit: &'static str,
    pub corrected_sheet: &'static str,
    pub journal_edits_note: fn(&str, &str) -> String,

    pub not_found: &'static str,
    pub refused_title: &'static str,
    pub refused_secret: &'static str,
    pub refused_host: &'static str,
    pub refused_origin: &'static str,
    pub path_private: &'static str,
    pub path_not_regular: &'static str,
    pub path_binary: &'static str,
    pub upload_not_stored: &'static str,
}

pub const EN: Text = Text {
    lang: crate::row::Lang::En,
    code: "en",
    app: "leadsync import",
    steps_label: "Steps",
    steps: ["Source", "Reading", "Mapping", "Check", "Send", "Results"],
    language: "Language",
    other_language: "Deutsch",
    service: "Service",
    no_service: "none set up (reading and mapping work without one)",
    sandbox: "the built-in sandbox (demo data)",
    error: "Error",

    source_title: "Choose the sheet to import",
    source_intro: "Upload a spreadsheet, or say where it is. Nothing is sent anywhere yet: the \
                   next steps show how it is read and what each column is for.",
    upload_legend: "Upload a file",
    upload_label: "Spreadsheet file",
    upload_hint: |mib| format!("CSV, TSV, XLSX, XLSM, XLSB, XLS or ODS, up to {mib} MiB."),
    upload_button: "Upload",
    uploading: "Uploading…",
    location_legend: "Or say where the file is",
    location_label: "Path or link",
    location_hint: "A path on this computer, or an http(s) link (Google Sheets and Dropbox \
                    share links work).",
    location_button: "Open",
    no_file_chosen: "Choose a file first.",
    too_large: |mib| format!("The file is larger than {mib} MiB, the most leadsync accepts."),
    no_such_file: |path| format!("There is no file at “{path}”."),
    upload_failed: "The upload broke off. Try again.",

    reading_title: "How the sheet is read",
    reading_intro: "Check that the columns and the first rows look right. If not, change what \
                    was detected below.",
    detected: "What was detected",
    file: "File",
    format: "Format",
    encoding: "Text encoding",
    delimiter: "Delimiter",
    sheet: "Sheet",
    header_row: "Header row",
    columns: "Columns",
    automatic: "automatic",
    comma: "comma (,)",
    semicolon: "semicolon (;)",
    tab: "tab",
    pipe: "vertical bar (|)",
    change_legend: "Change how it is read",
    encoding_hint: "For example UTF-8, windows-1252 or utf-16le. Leave empty to detect it.",
    header_row_hint: "The row number as Excel shows it. Leave empty to find it.",
    header_row_invalid: "The header row must be a row number, 1 or more.",
    apply: "Apply",
    detect_again: "Detect everything again",
    first_rows: |n| {
        format!("The first {} under the header", plural(Lang::En, n as u64, "row", "rows"))
    },
    row: "Row",
    use_as_header: "Holds the column names?",
    use_this_row: "This row",
    header_row_is: |row| format!("row {row}: this row holds the column names"),
    rows_above: "Rows above the header",
    cells: "Cells",
    use_row_as_header: |row| format!("Use row {row} as the header row"),
    no_data_rows: "The sheet has a header but no rows under it.",
    cannot_read: "The file cannot be read this way",
    other_file: "Choose another file",
    next_mapping: "Next: the columns",
    unknown_source: "This file is not known (any more): choose it again.",

    mapping_title: "What each column is for",
    mapping_intro: "leadsync guessed this from the column names and the first rows. Change what \
                    a column is for: every choice on this page is used by the check. Columns \
                    given the same variable name are joined.",
    column: "Column",
    role: "Used as",
    first_value: "First value",
    role_phone: "Phone number",
    role_secondary: "Another number of the same contact",
    role_campaign: "Campaign",
    role_country: "Country of the number",
    role_consent: "Consent to be called",
    role_record_id: "Record id from your CRM (who the lead is)",
    role_ignored: "Not used",
    role_variable_any: "Variable (name on the right)",
    variable_name: "Variable name",
    variable_name_of: |column| format!("Variable name for {column}"),
    update_preview: "Show the first rows with these choices",
    never_call_title: "Never call",
    never_call_intro: "Numbers on this list are never called from this account: every later \
        check and send leaves them out, whichever file they come from.",
    never_call_empty: "No number is on the list yet.",
    never_call_number: "Number",
    never_call_added: "Added (UTC)",
    never_call_from: "Where from",
    never_call_remove: |number| format!("Take {number} off the list"),
    never_call_add_label: "Add a number",
    never_call_add: "Add",
    never_call_typed: "typed in on this page",
    never_call_not_a_number: |typed| format!("“{typed}” is not a phone number."),
    never_call_row: "Never call this number",
    never_call_row_hint: |number| {
        format!("{number} goes on this account's do-not-call list, for this and every later sheet.")
    },
    never_call_note: |file, row| format!("{file}, row {row}"),
    never_call_no_number: "This row has no number that could be read.",
    never_call_no_service: "The do-not-call list belongs to an account: start leadsync ui with \
        a service to keep one.",
    never_call_failed: "The do-not-call list could not be written in the state folder.",
    campaign_column_unknown: |column, example| {
        format!(
            "The column “{column}” names no campaign of this account (for example “{example}”): \
             it is sent as a variable, and the campaign every lead goes into is chosen below."
        )
    },
    campaign_choose: "Choose a campaign",
    save_name_missing: "Give the mapping a name to save it under.",
    save_failed: "The mapping could not be saved in the state folder.",
    preview_title: "What the first rows would send",
    assistant_label: "Assistant that makes the calls",
    assistant_none: "none chosen (its variables are not checked)",
    assistant_says: |name| format!("What {name} will say first"),
    row_says: |row| format!("Row {row}:"),
    missing_variable: |name| format!("[missing: {name}]"),
    saved_fit: "A mapping saved earlier fits this sheet:",
    use_saved: |name| format!("Use the saved mapping “{name}”"),
    keep_legend: "Keep this mapping",
    download_mapping: "Download it as a file (for the command line)",
    save_name: "Save it here as",
    save_mapping: "Save",
    no_phone_column: "No column looks like a phone number.",
    back_reading: "Back to how the sheet is read",
    next_later: "Check every row before anything is sent: the next step shows what would be \
                 sent and what is wrong.",
    check_legend: "Check every row",
    campaign_label: "Campaign",
    campaign_hint: "The campaign every lead goes into.",
    campaign_from_column: |column| format!("From the column “{column}”, row by row"),
    region_label: "Country of numbers written without a country code",
    region_hint: "A country code (DE, AT, CH) or a country's name.",
    check_button: "Check all rows",
    allow_duplicates: "Send rows whose number is already in the campaign, or twice in the sheet \
                       (duplicates allowed)",
    checking: "Checking…",

    check_title: "Check",
    send_title: "Sending",
    results_title: "Results",
    rows_so_far: |n| {
        format!("{} so far. This page updates itself.", plural(Lang::En, n, "row", "rows"))
    },
    progress_line: |done, total, eta, speed| {
        let share = percent(Lang::En, done, total);
        let (done, total) = (count(Lang::En, done), count(Lang::En, total));
        match eta {
            Some(secs) => format!(
                "{done} of {total} rows ({share}), {} a second, about {} left",
                rate(Lang::En, speed),
                span(Lang::En, secs)
            ),
            None => format!("{done} of {total} rows ({share})"),
        }
    },
    refresh: "Refresh",
    run_failed: "The run stopped with an error",
    counts: "Counts",
    status_name: |status| match status {
        "valid" => "ready to send",
        "created" => "sent",
        "rejected" => "need fixing",
        "duplicate" => "duplicates",
        "skipped" => "skipped",
        "on_service" => "already on the service",
        "do_not_call" => "not to be called",
        "failed" => "failed",
        "not_sent" => "not sent yet",
        "excluded" => "excluded",
        "hidden" => "hidden in the workbook",
        _ => "rows",
    },
    reasons_title: "Why rows are not sent",
    reason: "Reason",
    rows_count: "Rows",
    what_to_do: "What to do",
    rows_title: "The rows",
    status: "Status",
    all_statuses: "every status",
    all_reasons: "every reason",
    search: "Search (number, name, any cell)",
    show: "Show",
    next_rows: "Next rows",
    first_rows_link: "First rows",
    no_rows_match: "No row matches.",
    searched_to: |row| {
        format!("Searched up to row {row} so far; the next page searches on from there.")
    },
    number: "Number",
    variables: "Variables",
    problems: "Problems",
    downloads: "Reports to download",
    download_names: ["The report (HTML)", "The report (JSON)", "The fix file for Excel"],
    send_legend: "Send",
    send_plan: |n, service, per_second| {
        format!(
            "{} to {service}, at {} per second: about {}.",
            plural(Lang::En, n, "lead", "leads"),
            rate(Lang::En, per_second),
            span(Lang::En, seconds_for(n, per_second))
        )
    },
    send_button: |n| format!("Send {}", plural(Lang::En, n, "lead", "leads")),
    changes_plan: |changed, to_stop, unchanged| {
        let mut said = format!(
            "Of the leads sent before: {} changed in the sheet and will be updated",
            count(Lang::En, changed)
        );
        if to_stop > 0 {
            said.push_str(&format!(
                ", {} now may not be called",
                plural(Lang::En, to_stop, "person", "people")
            ));
        }
        said.push_str(&format!(", {} unchanged.", count(Lang::En, unchanged)));
        said
    },
    stop_refused: |n| {
        format!(
            "Stop the leads of the {} who now may not be called (status completed: the campaign \
             no longer calls them)",
            plural(Lang::En, n, "person", "people")
        )
    },
    update_button: |n| format!("Update {}", plural(Lang::En, n, "lead", "leads")),
    nothing_to_send: "No row can be sent: fix the rows above first.",
    no_service_to_send: "No service is connected, so nothing can be sent. To try it, start \
                         leadsync with its sandbox; to send to your account, your IT sets the \
                         service's address and token.",
    stop_button: "Stop sending",
    stopping: "Stopping: the requests under way finish first.",
    stopped: "Stopped before the end: the rows not sent yet go out when you send again.",
    send_rest: "Send the rest",
    paused: |left| match left {
        1 => "Paused. 1 lead is not sent yet: “Send the rest” sends it.".to_string(),
        n => format!(
            "Paused. {} leads are not sent yet: “Send the rest” sends them.",
            count(Lang::En, n)
        ),
    },
    check_not_finished: "This check is still running: send once it is done.",
    check_not_usable: "Only a check that finished can be sent: check the sheet again.",
    sent_already: "These rows are sent.",
    send_under_way: "These rows are being sent.",
    see_results: "See the results",
    results_sentence: |created, campaign, skipped, to_fix| {
        let leads = match created {
            1 => "1 lead is".to_string(),
            n => format!("{} leads are", count(Lang::En, n)),
        };
        let place = match campaign {
            Some(name) => format!("in the campaign “{name}”"),
            None => "in their campaigns".to_string(),
        };
        let (skipped, to_fix) = (count(Lang::En, skipped), count(Lang::En, to_fix));
        format!("{leads} now {place}; {skipped} skipped, {to_fix} to fix.")
    },
    for_it: "For IT",
    sent_no_changes: "This check was sent: its rows are what was sent and are not changed \
        here any more. To change rows, check the sheet again.",
    delete_run: "Delete",
    delete_run_of: |file| format!("Delete this run of {file}, its rows and reports"),
    run_not_deleted: "A run that is still going cannot be deleted: stop it or wait until it is done.",
    space_used: |bytes, days| {
        format!(
            "Uploads, checks and sends take {} on this computer; those older than {days} days \
             are deleted when leadsync starts.",
            size(Lang::En, bytes)
        )
    },
    too_many_rows: |limit| {
        format!(
            "This sheet has more than {} rows, more than a check here takes. Split it into \
             smaller sheets, or ask your IT to raise the limit.",
            count(Lang::En, limit)
        )
    },
    not_a_country: |typed| {
        format!("“{typed}” is no country: write a code such as DE, AT, CH, or a name.")
    },
    fixes_offered: |n, column, was, now| {
        let rows = match n {
            1 => "1 cell of this sheet is".to_string(),
            n => format!("{} cells of this sheet are", count(Lang::En, n)),
        };
        format!(
            "{rows} wrong as before, and you fixed it then: for example “{was}” in {column} \
             became “{now}”."
        )
    },
    fixes_apply: "Fix them the same way and check again",
    sent_elsewhere: "This sheet is being sent right now from another tab, window or program. \
        Nothing was sent twice: wait until that send is done, then look at its results there.",
    report_file: |stem| format!("{stem} – check report.html"),
    fix_file: |stem| format!("{stem} – fixes.xlsx"),
    corrected_file: |stem| format!("{stem} – corrected.xlsx"),
    second_number: |phone| format!("second number {phone}"),
    journal_note: |path| {
        format!(
            "The command line resumes this run too: leadsync import with the same file. Its journal: {path}"
        )
    },
    back_mapping: "Back to the columns",

    load_legend: "Use a mapping file",
    load_label: "Mapping file (.toml, from leadsync init, a download here or a colleague)",
    load_button: "Use this mapping",
    mapping_file_invalid: |problem| {
        format!("This is not a mapping file leadsync can use: {problem}")
    },
    callable_legend: "Who may be called",
    countries_label: "Countries numbers may belong to",
    countries_hint: "e.g. DE, AT, CH; empty: any country",
    block_legend: "Never call these kinds of number",
    number_kind: NumberType::label,
    consent_values_label: |column| format!("Values in “{column}” that mean the person agreed"),
    suppress_label: "A list of numbers never to call",
    suppress_hint: "CSV, TXT, XLSX or ODS with one number per row; +49900* stands for every \
                    number that starts so. Each list added is used by the check and the send.",
    suppress_button: "Add the list",
    suppress_in_use: |name| format!("Suppression list in use: {name}"),
    runs_title: "Checks and sends since leadsync ui started",
    run_running: "under way",
    run_stopped: "stopped before the end",
    run_done: "done",
    minutes_ago: |m| match m {
        0 => "started just now".to_string(),
        1 => "started a minute ago".to_string(),
        m => format!("started {m} minutes ago"),
    },
    edit_column: "Edit",
    edit_link: |row| format!("Edit row {row}"),
    row_title: |row| format!("Row {row}"),
    row_intro: "Change a cell and check the row again. Your file is not changed: the edits \
                belong to this import (sending uses them) and to the corrected sheet you can \
                download.",
    in_file: "In the file",
    value_to_use: "Value to use",
    save_row: "Save and check again",
    row_saved: "Saved and checked again.",
    exclude_row: "Leave this row out, only this time",
    include_row: "Include this row again",
    row_is_excluded: "This row is excluded: it is not sent.",
    back_rows: "Back to the rows",
    row_not_found: "The sheet has no such row, or the row is blank.",
    only_finished_checks: "Rows can be changed on a finished check, before it is sent.",
    exclude_all: |n| match n {
        1 => "Exclude the duplicate row".to_string(),
        n => format!("Exclude all {} duplicate rows", count(Lang::En, n)),
    },
    country_for_rows: "Country for these rows (e.g. DE)",
    set_country: "Set the country of these rows",
    recheck: "Check the whole sheet again with my changes",
    edits_so_far: |cells, excluded| {
        format!(
            "Your changes: {} edited, {} excluded. The file itself is unchanged.",
            plural(Lang::En, cells as u64, "row", "rows"),
            count(Lang::En, excluded as u64)
        )
    },
    duplicates_after_edit: "A row checked on its own is not compared with the others: \
                            duplicates are found again when the whole sheet is checked or sent.",
    corrected_sheet: "The corrected sheet (XLSX, with your changes, without excluded rows; a cell \
        longer than Excel holds is cut to 32,767 characters, as in the fix file)",
    journal_edits_note: |journal, edits| {
        format!(
            "The command line resumes this run too: leadsync import with the same file and --edits {edits}. Its journal: {journal}"
        )
    },

    not_found: "There is no such page.",
    refused_title: "Not allowed",
    refused_secret: "This page opens only through the link leadsync gave when it started (it \
                     carries the key to the page). Open that link again, or start leadsync again.",
    refused_host: "This page answers only under the address it was started on.",
    refused_origin: "The request came from another site, or did not say where it came from.",
    path_private: "leadsync does not read files from here: this folder holds system files or leadsync's own settings and keys. Upload the sheet instead, or copy it to a folder of your own first.",
    path_not_regular: "This is not an ordinary file: choose the sheet itself.",
    path_binary: "This file is neither a spreadsheet nor text: export the data as .xlsx or .csv and choose that file.",
    upload_not_stored: "The file could not be stored in leadsync's state folder (the disk may be full, or the folder not writable): the window in which leadsync runs says why.",
};

pub const DE: Text = Text {
    lang: crate::row::Lang::De,
    code: "de",
    app: "leadsync Import",
    steps_label: "Schritte",
    steps: ["Quelle", "Einlesen", "Zuordnung", "Prüfung", "Senden", "Ergebnis"],
    language: "Sprache",
    other_language: "English",
    service: "Dienst",
    no_service: "keiner eingerichtet (Einlesen und Zuordnung gehen auch ohne)",
    sandbox: "die eingebaute Sandbox (Demodaten)",
    error: "Fehler",

    source_title: "Tabelle für den Import wählen",
    source_intro: "Laden Sie eine Tabelle hoch oder geben Sie an, wo sie liegt. Noch wird nichts \
                   gesendet: Die nächsten Schritte zeigen, wie sie gelesen wird und wofür jede \
                   Spalte steht.",
    upload_legend: "Datei hochladen",
    upload_label: "Tabellendatei",
    upload_hint: |mib| format!("CSV, TSV, XLSX, XLSM, XLSB, XLS oder ODS, bis {mib} MiB."),
    upload_button: "Hochladen",
    uploading: "Wird hochgeladen…",
    location_legend: "Oder angeben, wo die Datei liegt",
    location_label: "Pfad oder Link",
    location_hint: "Ein Pfad auf diesem Rechner oder ein http(s)-Link (auch Freigabelinks von \
                    Google Sheets und Dropbox).",
    location_button: "Öffnen",
    no_file_chosen: "Bitte zuerst eine Datei wählen.",
    too_large: |mib| format!("Die Datei ist größer als {mib} MiB, mehr nimmt leadsync nicht an."),
    no_such_file: |path| format!("Unter „{path}“ liegt keine Datei."),
    upload_failed: "Das Hochladen brach ab. Bitte noch einmal versuchen.",

    reading_title: "Wie die Tabelle gelesen wird",
    reading_intro: "Prüfen Sie, ob Spalten und erste Zeilen stimmen. Falls nicht, ändern Sie \
                    unten, was erkannt wurde.",
    detected: "Erkannt",
    file: "Datei",
    format: "Format",
    encoding: "Zeichenkodierung",
    delimiter: "Trennzeichen",
    sheet: "Tabellenblatt",
    header_row: "Kopfzeile",
    columns: "Spalten",
    automatic: "automatisch",
    comma: "Komma (,)",
    semicolon: "Semikolon (;)",
    tab: "Tabulator",
    pipe: "senkrechter Strich (|)",
    change_legend: "Ändern, wie gelesen wird",
    encoding_hint: "Zum Beispiel UTF-8, windows-1252 oder utf-16le. Leer lassen zum Erkennen.",
    header_row_hint: "Die Zeilennummer wie in Excel. Leer lassen zum Suchen.",
    header_row_invalid: "Die Kopfzeile muss eine Zeilennummer ab 1 sein.",
    apply: "Übernehmen",
    detect_again: "Alles neu erkennen",
    first_rows: |n| {
        format!("Die ersten {} unter der Kopfzeile", plural(Lang::De, n as u64, "Zeile", "Zeilen"))
    },
    row: "Zeile",
    use_as_header: "Enthält die Spaltennamen?",
    use_this_row: "Diese Zeile",
    header_row_is: |row| format!("Zeile {row}: Diese Zeile enthält die Spaltennamen"),
    rows_above: "Zeilen über der Kopfzeile",
    cells: "Zellen",
    use_row_as_header: |row| format!("Zeile {row} als Kopfzeile nehmen"),
    no_data_rows: "Die Tabelle hat eine Kopfzeile, aber keine Zeilen darunter.",
    cannot_read: "So lässt sich die Datei nicht lesen",
    other_file: "Andere Datei wählen",
    next_mapping: "Weiter: die Spalten",
    unknown_source: "Diese Datei ist (nicht mehr) bekannt: Bitte erneut wählen.",

    mapping_title: "Wofür jede Spalte steht",
    mapping_intro: "leadsync hat das aus den Spaltennamen und den ersten Zeilen erraten. Ändern \
                    Sie, wofür eine Spalte steht: Jede Auswahl auf dieser Seite gilt für die \
                    Prüfung. Spalten mit demselben Variablennamen werden zusammengefügt.",
    column: "Spalte",
    role: "Verwendet als",
    first_value: "Erster Wert",
    role_phone: "Telefonnummer",
    role_secondary: "Weitere Nummer desselben Kontakts",
    role_campaign: "Kampagne",
    role_country: "Land der Nummer",
    role_consent: "Einwilligung in Anrufe",
    role_record_id: "Datensatz-ID aus Ihrem CRM (wer der Lead ist)",
    role_ignored: "Nicht verwendet",
    role_variable_any: "Variable (Name rechts)",
    variable_name: "Variablenname",
    variable_name_of: |column| format!("Variablenname für {column}"),
    update_preview: "Erste Zeilen mit dieser Auswahl zeigen",
    never_call_title: "Nie anrufen",
    never_call_intro: "Nummern auf dieser Liste werden von diesem Konto nie angerufen: Jede \
        spätere Prüfung und jedes Senden lässt sie aus, aus welcher Datei sie auch kommen.",
    never_call_empty: "Noch keine Nummer auf der Liste.",
    never_call_number: "Nummer",
    never_call_added: "Hinzugefügt (UTC)",
    never_call_from: "Herkunft",
    never_call_remove: |number| format!("{number} von der Liste nehmen"),
    never_call_add_label: "Nummer hinzufügen",
    never_call_add: "Hinzufügen",
    never_call_typed: "auf dieser Seite eingegeben",
    never_call_not_a_number: |typed| format!("„{typed}“ ist keine Telefonnummer."),
    never_call_row: "Diese Nummer nie anrufen",
    never_call_row_hint: |number| {
        format!(
            "{number} kommt auf die Sperrliste dieses Kontos, für diese und jede spätere Tabelle."
        )
    },
    never_call_note: |file, row| format!("{file}, Zeile {row}"),
    never_call_no_number: "In dieser Zeile steht keine lesbare Nummer.",
    never_call_no_service: "Die Sperrliste gehört zu einem Konto: Starten Sie leadsync ui mit \
        einem Dienst, um eine zu führen.",
    never_call_failed: "Die Sperrliste konnte im Statusordner nicht geschrieben werden.",
    campaign_column_unknown: |column, example| {
        format!(
            "Die Spalte „{column}“ nennt keine Kampagne dieses Kontos (zum Beispiel „{example}“): \
             Sie wird als Variable gesendet, und die Kampagne für alle Leads wählen Sie unten."
        )
    },
    campaign_choose: "Kampagne wählen",
    save_name_missing: "Geben Sie der Zuordnung einen Namen, unter dem sie gespeichert wird.",
    save_failed: "Die Zuordnung konnte im Statusordner nicht gespeichert werden.",
    preview_title: "Was die ersten Zeilen senden würden",
    assistant_label: "Assistent, der anruft",
    assistant_none: "keiner gewählt (seine Variablen werden nicht geprüft)",
    assistant_says: |name| format!("Was {name} zuerst sagen wird"),
    row_says: |row| format!("Zeile {row}:"),
    missing_variable: |name| format!("[fehlt: {name}]"),
    saved_fit: "Eine früher gespeicherte Zuordnung passt zu dieser Tabelle:",
    use_saved: |name| format!("Gespeicherte Zuordnung „{name}“ verwenden"),
    keep_legend: "Diese Zuordnung behalten",
    download_mapping: "Als Datei herunterladen (für leadsync import oder sync --mapping)",
    save_name: "Hier speichern als",
    save_mapping: "Speichern",
    no_phone_column: "Keine Spalte sieht nach einer Telefonnummer aus.",
    back_reading: "Zurück zum Einlesen",
    next_later: "Prüfen Sie jede Zeile, bevor etwas gesendet wird: Der nächste Schritt zeigt, \
                 was gesendet würde und was nicht stimmt.",
    check_legend: "Jede Zeile prüfen",
    campaign_label: "Kampagne",
    campaign_hint: "Die Kampagne, in die jeder Lead kommt.",
    campaign_from_column: |column| format!("Aus der Spalte „{column}“, Zeile für Zeile"),
    region_label: "Land von Nummern ohne Ländervorwahl",
    region_hint: "Ein Ländercode (DE, AT, CH) oder der Name eines Landes.",
    check_button: "Alle Zeilen prüfen",
    allow_duplicates: "Auch Zeilen senden, deren Nummer schon in der Kampagne oder doppelt in \
                       der Tabelle steht (Doppelte erlaubt)",
    checking: "Wird geprüft…",

    check_title: "Prüfung",
    send_title: "Senden",
    results_title: "Ergebnis",
    rows_so_far: |n| {
        format!(
            "Bisher {}. Diese Seite aktualisiert sich selbst.",
            plural(Lang::De, n, "Zeile", "Zeilen")
        )
    },
    progress_line: |done, total, eta, speed| {
        let share = percent(Lang::De, done, total);
        let (done, total) = (count(Lang::De, done), count(Lang::De, total));
        match eta {
            Some(secs) => format!(
                "{done} von {total} Zeilen ({share}), {} pro Sekunde, noch etwa {}",
                rate(Lang::De, speed),
                span(Lang::De, secs)
            ),
            None => format!("{done} von {total} Zeilen ({share})"),
        }
    },
    refresh: "Aktualisieren",
    run_failed: "Der Lauf brach mit einem Fehler ab",
    counts: "Zahlen",
    status_name: |status| match status {
        "valid" => "bereit zum Senden",
        "created" => "gesendet",
        "rejected" => "zu korrigieren",
        "duplicate" => "Doppelte",
        "skipped" => "übersprungen",
        "on_service" => "schon im Dienst",
        "do_not_call" => "nicht anzurufen",
        "failed" => "fehlgeschlagen",
        "not_sent" => "noch nicht gesendet",
        "excluded" => "ausgeschlossen",
        "hidden" => "in der Arbeitsmappe ausgeblendet",
        _ => "Zeilen",
    },
    reasons_title: "Warum Zeilen nicht gesendet werden",
    reason: "Grund",
    rows_count: "Zeilen",
    what_to_do: "Was zu tun ist",
    rows_title: "Die Zeilen",
    status: "Status",
    all_statuses: "jeder Status",
    all_reasons: "jeder Grund",
    search: "Suche (Nummer, Name, jede Zelle)",
    show: "Anzeigen",
    next_rows: "Nächste Zeilen",
    first_rows_link: "Erste Zeilen",
    no_rows_match: "Keine Zeile passt.",
    searched_to: |row| {
        format!("Bisher bis Zeile {row} durchsucht; die nächste Seite sucht von dort weiter.")
    },
    number: "Nummer",
    variables: "Variablen",
    problems: "Probleme",
    downloads: "Berichte zum Herunterladen",
    download_names: ["Der Bericht (HTML)", "Der Bericht (JSON)", "Die Korrekturdatei für Excel"],
    send_legend: "Senden",
    send_plan: |n, service, per_second| {
        format!(
            "{} an {service}, {} pro Sekunde: etwa {}.",
            plural(Lang::De, n, "Lead", "Leads"),
            rate(Lang::De, per_second),
            span(Lang::De, seconds_for(n, per_second))
        )
    },
    send_button: |n| format!("{} senden", plural(Lang::De, n, "Lead", "Leads")),
    changes_plan: |changed, to_stop, unchanged| {
        let mut said = format!(
            "Von den schon gesendeten Leads: {} in der Tabelle geändert, werden aktualisiert",
            count(Lang::De, changed)
        );
        if to_stop > 0 {
            let may = if to_stop == 1 { "darf" } else { "dürfen" };
            said.push_str(&format!(
                ", {} {may} jetzt nicht mehr angerufen werden",
                plural(Lang::De, to_stop, "Person", "Personen")
            ));
        }
        said.push_str(&format!(", {} unverändert.", count(Lang::De, unchanged)));
        said
    },
    stop_refused: |n| {
        format!(
            "Die Leads der {}, die nicht mehr angerufen werden dürfen, stoppen (Status \
             completed: die Kampagne ruft sie nicht mehr an)",
            plural(Lang::De, n, "Person", "Personen")
        )
    },
    update_button: |n| format!("{} aktualisieren", plural(Lang::De, n, "Lead", "Leads")),
    nothing_to_send: "Keine Zeile kann gesendet werden: Korrigieren Sie zuerst die Zeilen oben.",
    no_service_to_send: "Kein Dienst verbunden, also kann nichts gesendet werden. Zum \
                         Ausprobieren starten Sie leadsync mit seiner Sandbox; um an Ihr Konto \
                         zu senden, richtet Ihre IT Adresse und Token des Dienstes ein.",
    stop_button: "Senden anhalten",
    stopping: "Wird angehalten: Laufende Anfragen werden noch beendet.",
    stopped: "Vor dem Ende angehalten: Die noch nicht gesendeten Zeilen gehen beim nächsten Senden raus.",
    send_rest: "Den Rest senden",
    paused: |left| match left {
        1 => {
            "Angehalten. 1 Lead ist noch nicht gesendet: „Den Rest senden“ sendet ihn.".to_string()
        }
        n => format!(
            "Angehalten. {} Leads sind noch nicht gesendet: „Den Rest senden“ sendet sie.",
            count(Lang::De, n)
        ),
    },
    check_not_finished: "Diese Prüfung läuft noch: Senden Sie, wenn sie fertig ist.",
    check_not_usable: "Nur eine fertige Prüfung kann gesendet werden: Prüfen Sie die Tabelle erneut.",
    sent_already: "Diese Zeilen sind gesendet.",
    send_under_way: "Diese Zeilen werden gerade gesendet.",
    see_results: "Zum Ergebnis",
    results_sentence: |created, campaign, skipped, to_fix| {
        let leads = match created {
            1 => "1 Lead ist".to_string(),
            n => format!("{} Leads sind", count(Lang::De, n)),
        };
        let place = match campaign {
            Some(name) => format!("in der Kampagne „{name}“"),
            None => "in ihren Kampagnen".to_string(),
        };
        let (skipped, to_fix) = (count(Lang::De, skipped), count(Lang::De, to_fix));
        format!("{leads} jetzt {place}; {skipped} übersprungen, {to_fix} zu korrigieren.")
    },
    for_it: "Für die IT",
    sent_no_changes: "Diese Prüfung wurde gesendet: Ihre Zeilen sind, was gesendet wurde, und \
        werden hier nicht mehr geändert. Um Zeilen zu ändern, prüfen Sie die Tabelle erneut.",
    delete_run: "Löschen",
    delete_run_of: |file| format!("Diesen Lauf von {file} mit seinen Zeilen und Berichten löschen"),
    run_not_deleted: "Ein Lauf, der noch läuft, kann nicht gelöscht werden: Halten Sie ihn an oder \
        warten Sie, bis er fertig ist.",
    space_used: |bytes, days| {
        format!(
            "Hochgeladene Dateien, Prüfungen und Sendungen belegen {} auf diesem Computer; was \
             älter als {days} Tage ist, wird beim Start von leadsync gelöscht.",
            size(Lang::De, bytes)
        )
    },
    too_many_rows: |limit| {
        format!(
            "Diese Tabelle hat mehr als {} Zeilen, mehr als eine Prüfung hier annimmt. Teilen \
             Sie sie in kleinere Tabellen auf, oder bitten Sie Ihre IT, die Grenze zu erhöhen.",
            count(Lang::De, limit)
        )
    },
    not_a_country: |typed| {
        format!(
            "„{typed}“ ist kein Land: Schreiben Sie einen Code wie DE, AT, CH oder einen Namen."
        )
    },
    fixes_offered: |n, column, was, now| {
        let rows = match n {
            1 => "1 Zelle dieser Tabelle ist".to_string(),
            n => format!("{} Zellen dieser Tabelle sind", count(Lang::De, n)),
        };
        format!(
            "{rows} falsch wie schon einmal, und Sie haben das damals korrigiert: zum Beispiel \
             wurde „{was}“ in {column} zu „{now}“."
        )
    },
    fixes_apply: "Genauso korrigieren und erneut prüfen",
    sent_elsewhere: "Diese Tabelle wird gerade aus einem anderen Tab, Fenster oder Programm \
        gesendet. Nichts wurde doppelt gesendet: Warten Sie, bis dieses Senden fertig ist, und \
        sehen Sie sich dort das Ergebnis an.",
    report_file: |stem| format!("{stem} – Prüfbericht.html"),
    fix_file: |stem| format!("{stem} – Korrekturen.xlsx"),
    corrected_file: |stem| format!("{stem} – korrigiert.xlsx"),
    second_number: |phone| format!("Zweitnummer {phone}"),
    journal_note: |path| {
        format!(
            "Die Kommandozeile setzt diesen Lauf ebenfalls fort: leadsync import mit derselben Datei. Sein Journal: {path}"
        )
    },
    back_mapping: "Zurück zu den Spalten",

    load_legend: "Eine Zuordnungsdatei verwenden",
    load_label: "Zuordnungsdatei (.toml, von leadsync init, hier heruntergeladen oder von Kollegen)",
    load_button: "Diese Zuordnung verwenden",
    mapping_file_invalid: |problem| {
        format!("Diese Zuordnungsdatei kann leadsync nicht verwenden: {problem}")
    },
    callable_legend: "Wer angerufen werden darf",
    countries_label: "Länder, zu denen Nummern gehören dürfen",
    countries_hint: "z. B. DE, AT, CH; leer: jedes Land",
    block_legend: "Diese Arten von Nummern nie anrufen",
    // The library's words for the kinds of number, as its messages say them.
    number_kind: |kind| crate::row::number_kind(kind, Lang::De),
    consent_values_label: |column| {
        format!("Werte in „{column}“, die bedeuten, dass die Person zugestimmt hat")
    },
    suppress_label: "Eine Liste von Nummern, die nie angerufen werden",
    suppress_hint: "CSV, TXT, XLSX oder ODS mit einer Nummer je Zeile; +49900* steht für jede \
                    Nummer, die so beginnt. Jede hinzugefügte Liste gilt für Prüfung und Senden.",
    suppress_button: "Liste hinzufügen",
    suppress_in_use: |name| format!("Verwendete Sperrliste: {name}"),
    runs_title: "Prüfungen und Sendungen seit dem Start von leadsync ui",
    run_running: "läuft",
    run_stopped: "vor dem Ende angehalten",
    run_done: "fertig",
    minutes_ago: |m| match m {
        0 => "gerade gestartet".to_string(),
        1 => "vor einer Minute gestartet".to_string(),
        m => format!("vor {m} Minuten gestartet"),
    },
    edit_column: "Bearbeiten",
    edit_link: |row| format!("Zeile {row} bearbeiten"),
    row_title: |row| format!("Zeile {row}"),
    row_intro: "Ändern Sie eine Zelle und prüfen Sie die Zeile erneut. Ihre Datei bleibt \
                unverändert: Die Änderungen gehören zu diesem Import (das Senden verwendet sie) \
                und zur korrigierten Tabelle, die Sie herunterladen können.",
    in_file: "In der Datei",
    value_to_use: "Zu verwendender Wert",
    save_row: "Speichern und erneut prüfen",
    row_saved: "Gespeichert und erneut geprüft.",
    exclude_row: "Diese Zeile nur diesmal ausschließen",
    include_row: "Diese Zeile wieder einschließen",
    row_is_excluded: "Diese Zeile ist ausgeschlossen: Sie wird nicht gesendet.",
    back_rows: "Zurück zu den Zeilen",
    row_not_found: "Diese Zeile gibt es in der Tabelle nicht, oder sie ist leer.",
    only_finished_checks: "Zeilen lassen sich nach einer abgeschlossenen Prüfung ändern, vor dem Senden.",
    exclude_all: |n| match n {
        1 => "Die doppelte Zeile ausschließen".to_string(),
        n => format!("Alle {} doppelten Zeilen ausschließen", count(Lang::De, n)),
    },
    country_for_rows: "Land für diese Zeilen (z. B. DE)",
    set_country: "Das Land dieser Zeilen setzen",
    recheck: "Die ganze Tabelle mit meinen Änderungen erneut prüfen",
    edits_so_far: |cells, excluded| {
        format!(
            "Ihre Änderungen: {} bearbeitet, {} ausgeschlossen. Die Datei selbst bleibt unverändert.",
            plural(Lang::De, cells as u64, "Zeile", "Zeilen"),
            count(Lang::De, excluded as u64)
        )
    },
    duplicates_after_edit: "Eine einzeln geprüfte Zeile wird nicht mit den anderen verglichen: \
                            Doppelte werden bei der nächsten Prüfung der ganzen Tabelle oder beim \
                            Senden wieder gefunden.",
    corrected_sheet: "Die korrigierte Tabelle (XLSX, mit Ihren Änderungen, ohne ausgeschlossene Zeilen; \
        eine Zelle, die länger ist, als Excel fasst, wird wie in der Korrekturdatei auf 32.767 \
        Zeichen gekürzt)",
    journal_edits_note: |journal, edits| {
        format!(
            "Die Kommandozeile setzt diesen Lauf ebenfalls fort: leadsync import mit derselben Datei und --edits {edits}. Sein Journal: {journal}"
        )
    },

    not_found: "Diese Seite gibt es nicht.",
    refused_title: "Nicht erlaubt",
    refused_secret: "Diese Seite öffnet sich nur über den Link, den leadsync beim Start \
                     angegeben hat (er enthält den Schlüssel zur Seite). Öffnen Sie diesen Link \
                     erneut, oder starten Sie leadsync neu.",
    refused_host: "Diese Seite antwortet nur unter der Adresse, unter der sie gestartet wurde.",
    refused_origin: "Die Anfrage kam von einer anderen Seite oder sagte nicht, woher sie kam.",
    path_private: "Aus diesem Ordner liest leadsync keine Dateien: Er enthält Systemdateien oder die Einstellungen und Schlüssel von leadsync. Laden Sie die Tabelle stattdessen hoch, oder kopieren Sie sie zuerst in einen eigenen Ordner.",
    path_not_regular: "Das ist keine gewöhnliche Datei: Wählen Sie die Tabelle selbst.",
    path_binary: "Diese Datei ist weder eine Tabelle noch Text: Exportieren Sie die Daten als .xlsx oder .csv und wählen Sie diese Datei.",
    upload_not_stored: "Die Datei konnte nicht im Zustandsordner von leadsync gespeichert werden (vielleicht ist die Festplatte voll oder der Ordner nicht beschreibbar): Das Fenster, in dem leadsync läuft, sagt, warum.",
};

/// About how long `n` sends take at `rate` per second, in seconds or minutes.
/// A size as people say it: `850 KB`, `1,2 GB`.
fn size(lang: Lang, bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{} {}", rate(lang, value), UNITS[unit])
}

/// How long sending `n` leads takes at `per_second` (no limit: a second at most).
fn seconds_for(n: u64, per_second: f64) -> u64 {
    match per_second > 0.0 {
        true => (n as f64 / per_second).ceil() as u64,
        false => 1,
    }
}

/// A stretch of time as a person says it: `45 s`, `12 min`, `2 h 11 min` (the same in both
/// languages, with the number words of each).
fn span(lang: Lang, secs: u64) -> String {
    match secs {
        0..=90 => format!("{} s", secs.max(1)),
        91..=5399 => format!("{} min", count(lang, secs.div_ceil(60))),
        _ => {
            let minutes = secs.div_ceil(60);
            format!("{} h {} min", count(lang, minutes / 60), minutes % 60)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DE, EN, Lang, span};

    #[test]
    fn numbers_and_times_are_said_in_the_pages_language() {
        assert_eq!(span(Lang::De, 7860), "2 h 11 min");
        assert_eq!(span(Lang::En, 45), "45 s");
        assert_eq!((DE.send_button)(50_000), "50.000 Leads senden");
        assert_eq!((EN.send_button)(1), "Send 1 lead");
        assert_eq!(
            (DE.changes_plan)(3, 1, 1_200),
            "Von den schon gesendeten Leads: 3 in der Tabelle geändert, werden aktualisiert, \
             1 Person darf jetzt nicht mehr angerufen werden, 1.200 unverändert."
        );
        assert_eq!((DE.update_button)(2), "2 Leads aktualisieren");
        assert_eq!(
            (DE.edits_so_far)(1, 0),
            "Ihre Änderungen: 1 Zeile bearbeitet, 0 ausgeschlossen. Die Datei selbst bleibt unverändert."
        );
        let line = (DE.progress_line)(1500, 50_000, Some(8600), 5.1);
        assert_eq!(
            line,
            "1.500 von 50.000 Zeilen (3,0\u{a0}%), 5,1 pro Sekunde, noch etwa 2 h 24 min"
        );
    }
}
