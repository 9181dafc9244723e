//! The words for every reason a row is refused or warned about, and for every row status, in
//! English and German: a short title, what to do about it on the page, and the hint the CLI
//! prints (which may name a flag or a mapping key, as a terminal user types them).
//!
//! Every `match` here lists every variant, without a wildcard: a new reason does not compile
//! until it has its words in both languages, and `complete.rs` checks what the compiler cannot
//! (no English in the German, no terminal words in a page hint).

use super::lang::Lang;
use super::{IssueCode, RowStatus};

impl IssueCode {
    /// Every reason, in declaration order (a test holds it to the enum).
    pub const ALL: [IssueCode; 30] = [
        IssueCode::MissingPhone,
        IssueCode::InvalidPhone,
        IssueCode::ScientificNotation,
        IssueCode::MissingCampaign,
        IssueCode::UnknownCampaign,
        IssueCode::AmbiguousCampaign,
        IssueCode::DuplicateInFile,
        IssueCode::AlreadyExists,
        IssueCode::ServerRejected,
        IssueCode::RequestFailed,
        IssueCode::InvalidSecondaryPhone,
        IssueCode::ExtensionDropped,
        IssueCode::RemarkDropped,
        IssueCode::CellError,
        IssueCode::Suppressed,
        IssueCode::SuppressedSecondary,
        IssueCode::ForeignNumber,
        IssueCode::ForeignSecondary,
        IssueCode::UnknownCountry,
        IssueCode::BlockedNumberType,
        IssueCode::BlockedSecondaryType,
        IssueCode::NoConsent,
        IssueCode::MissingVariable,
        IssueCode::Excluded,
        IssueCode::HiddenRow,
        IssueCode::FilteredOut,
        IssueCode::SecondaryNotUpdated,
        IssueCode::LeadUpdated,
        IssueCode::LeadStopped,
        IssueCode::ChangeFailed,
    ];

    /// A short title a sales-ops person understands: `No consent`, `Keine Einwilligung`.
    pub fn title(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => title_en(self),
            Lang::De => title_de(self),
        }
    }

    /// What to do about it on a page: no flag, no mapping key, no file path.
    pub fn todo(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => todo_en(self),
            Lang::De => todo_de(self),
        }
    }

    /// What to do about it from the terminal, in English: the CLI's hint, which may name a
    /// flag or a line of the mapping file.
    pub fn fix(self) -> &'static str {
        fix_en(self)
    }

    /// The CLI's hint in `lang` (flag names and mapping keys stay as they are typed).
    pub fn fix_in(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => fix_en(self),
            Lang::De => fix_de(self),
        }
    }
}

impl RowStatus {
    /// Every status, in declaration order.
    pub const ALL: [RowStatus; 7] = [
        RowStatus::Valid,
        RowStatus::Created,
        RowStatus::Rejected,
        RowStatus::Duplicate,
        RowStatus::Skipped,
        RowStatus::Failed,
        RowStatus::NotSent,
    ];

    /// The status as a person reads it: `Valid`, `Gültig`.
    pub fn word(self, lang: Lang) -> &'static str {
        match (lang, self) {
            (Lang::En, RowStatus::Valid) => "Valid",
            (Lang::En, RowStatus::Created) => "Created",
            (Lang::En, RowStatus::Rejected) => "Rejected",
            (Lang::En, RowStatus::Duplicate) => "Duplicate",
            (Lang::En, RowStatus::Skipped) => "Skipped",
            (Lang::En, RowStatus::Failed) => "Failed",
            (Lang::En, RowStatus::NotSent) => "Not sent yet",
            (Lang::De, RowStatus::Valid) => "Gültig",
            (Lang::De, RowStatus::Created) => "Angelegt",
            (Lang::De, RowStatus::Rejected) => "Abgelehnt",
            (Lang::De, RowStatus::Duplicate) => "Doppelt",
            (Lang::De, RowStatus::Skipped) => "Übersprungen",
            (Lang::De, RowStatus::Failed) => "Fehlgeschlagen",
            (Lang::De, RowStatus::NotSent) => "Noch nicht gesendet",
        }
    }

    /// The status as the JSON report spells it (`not_sent`), the same in every language.
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Valid => "valid",
            RowStatus::Created => "created",
            RowStatus::Rejected => "rejected",
            RowStatus::Duplicate => "duplicate",
            RowStatus::Skipped => "skipped",
            RowStatus::Failed => "failed",
            RowStatus::NotSent => "not_sent",
        }
    }
}

fn title_en(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => "No phone number",
        IssueCode::InvalidPhone => "Phone number not valid",
        IssueCode::ScientificNotation => "Number cut short by Excel",
        IssueCode::MissingCampaign => "No campaign",
        IssueCode::UnknownCampaign => "Unknown campaign",
        IssueCode::AmbiguousCampaign => "Ambiguous campaign name",
        IssueCode::DuplicateInFile => "Repeated in the file",
        IssueCode::AlreadyExists => "Already on the service",
        IssueCode::ServerRejected => "Refused by the service",
        IssueCode::RequestFailed => "Could not be sent",
        IssueCode::InvalidSecondaryPhone => "Second number not valid",
        IssueCode::ExtensionDropped => "Extension dropped",
        IssueCode::RemarkDropped => "Remark after the number dropped",
        IssueCode::CellError => "Formula error in a cell",
        IssueCode::Suppressed => "On a suppression list",
        IssueCode::SuppressedSecondary => "Second number on a suppression list",
        IssueCode::ForeignNumber => "Outside the allowed countries",
        IssueCode::ForeignSecondary => "Second number outside the allowed countries",
        IssueCode::UnknownCountry => "Country cell not recognised",
        IssueCode::BlockedNumberType => "Blocked number type",
        IssueCode::BlockedSecondaryType => "Second number of a blocked type",
        IssueCode::NoConsent => "No consent",
        IssueCode::MissingVariable => "Variable the assistant needs is empty",
        IssueCode::SecondaryNotUpdated => "Second number changed, not updated",
        IssueCode::LeadUpdated => "Lead updated",
        IssueCode::LeadStopped => "Lead stopped",
        IssueCode::ChangeFailed => "Lead not changed",
        IssueCode::Excluded => "Excluded by you",
        IssueCode::HiddenRow => "Hidden row",
        IssueCode::FilteredOut => "Filtered out",
    }
}

fn title_de(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => "Keine Telefonnummer",
        IssueCode::InvalidPhone => "Telefonnummer ungültig",
        IssueCode::ScientificNotation => "Nummer von Excel gekürzt",
        IssueCode::MissingCampaign => "Keine Kampagne",
        IssueCode::UnknownCampaign => "Unbekannte Kampagne",
        IssueCode::AmbiguousCampaign => "Kampagnenname mehrdeutig",
        IssueCode::DuplicateInFile => "Doppelt in der Datei",
        IssueCode::AlreadyExists => "Schon beim Dienst",
        IssueCode::ServerRejected => "Vom Dienst abgelehnt",
        IssueCode::RequestFailed => "Senden fehlgeschlagen",
        IssueCode::InvalidSecondaryPhone => "Weitere Nummer ungültig",
        IssueCode::ExtensionDropped => "Durchwahl weggelassen",
        IssueCode::RemarkDropped => "Bemerkung nach der Nummer weggelassen",
        IssueCode::CellError => "Formelfehler in einer Zelle",
        IssueCode::Suppressed => "Auf einer Sperrliste",
        IssueCode::SuppressedSecondary => "Weitere Nummer auf einer Sperrliste",
        IssueCode::ForeignNumber => "Außerhalb der erlaubten Länder",
        IssueCode::ForeignSecondary => "Weitere Nummer außerhalb der erlaubten Länder",
        IssueCode::UnknownCountry => "Land nicht erkannt",
        IssueCode::BlockedNumberType => "Gesperrte Nummernart",
        IssueCode::BlockedSecondaryType => "Weitere Nummer einer gesperrten Art",
        IssueCode::NoConsent => "Keine Einwilligung",
        IssueCode::MissingVariable => "Variable für den Assistenten leer",
        IssueCode::SecondaryNotUpdated => "Zweitnummer geändert, nicht aktualisiert",
        IssueCode::LeadUpdated => "Lead aktualisiert",
        IssueCode::LeadStopped => "Lead gestoppt",
        IssueCode::ChangeFailed => "Lead nicht geändert",
        IssueCode::Excluded => "Von Ihnen ausgeschlossen",
        IssueCode::HiddenRow => "Ausgeblendete Zeile",
        IssueCode::FilteredOut => "Herausgefiltert",
    }
}

fn todo_en(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => {
            "Enter a phone number, or choose a second phone column to fall back on"
        }
        IssueCode::InvalidPhone => {
            "Correct the number, or write it with its country code (+49 …) if it is foreign"
        }
        IssueCode::ScientificNotation => {
            "Format the column as text in the spreadsheet and type the number again: Excel dropped its last digits"
        }
        IssueCode::MissingCampaign => "Fill in the campaign, or choose one campaign for every row",
        IssueCode::UnknownCampaign => "Use the id or the exact name of an existing campaign",
        IssueCode::AmbiguousCampaign => "Use the campaign's id: several campaigns share this name",
        IssueCode::DuplicateInFile => {
            "Leave the row out or remove the repeated row, or allow duplicates if both are to be called"
        }
        IssueCode::AlreadyExists => "Nothing to do: the lead is already on the service",
        IssueCode::ServerRejected => "Correct the value the service names, then send again",
        IssueCode::RequestFailed => {
            "Send again: rows that failed are retried, rows already sent are not sent twice"
        }
        IssueCode::InvalidSecondaryPhone => "Correct the second number; the lead went without it",
        IssueCode::ExtensionDropped => "Nothing to do: the service takes no extensions",
        IssueCode::RemarkDropped => {
            "Nothing to do: the number was sent without the remark; put remarks in a column of their own to send them as a variable"
        }
        IssueCode::CellError => "Fix the formula in the spreadsheet",
        IssueCode::Suppressed => {
            "Nothing to do: the number is on a do-not-call list and is never called"
        }
        IssueCode::SuppressedSecondary => {
            "Nothing to do: the second number is on a do-not-call list and was left out"
        }
        IssueCode::ForeignNumber => {
            "Check the number's country code or the row's country; allow the country only if the campaign may call there"
        }
        IssueCode::ForeignSecondary => "Check the second number's country code; it was left out",
        IssueCode::UnknownCountry => {
            "Write the country as a code (PL, SE, CZ) or a name, or the number with its country code (+48 …)"
        }
        IssueCode::BlockedNumberType => {
            "Use another number for this person, or stop blocking this type of number if calling it is intended"
        }
        IssueCode::BlockedSecondaryType => {
            "Nothing to do unless intended: the second number's type is blocked and it was left out"
        }
        IssueCode::NoConsent => {
            "Record the person's consent in the consent column before they can be called"
        }
        IssueCode::MissingVariable => {
            "Fill in the cell the assistant's text needs, or let such rows through with a warning"
        }
        IssueCode::SecondaryNotUpdated => {
            "Change the second number on the service by hand: it cannot be updated from here"
        }
        IssueCode::LeadUpdated | IssueCode::LeadStopped => {
            "Nothing to do: the lead now says what the row says"
        }
        IssueCode::ChangeFailed => "Nothing to do: the next sync sends the change again",
        IssueCode::Excluded => {
            "Nothing to do: you left this row out; include it again on its row page"
        }
        IssueCode::HiddenRow | IssueCode::FilteredOut => {
            "Nothing to do if you hid it on purpose; show the row in Excel to send it"
        }
    }
}

fn todo_de(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => {
            "Telefonnummer eintragen oder eine zweite Telefonspalte als Ersatz wählen"
        }
        IssueCode::InvalidPhone => {
            "Nummer korrigieren oder mit Ländervorwahl (+49 …) schreiben, wenn sie ausländisch ist"
        }
        IssueCode::ScientificNotation => {
            "Spalte in der Tabelle als Text formatieren und die Nummer neu eingeben: Excel hat die letzten Ziffern verworfen"
        }
        IssueCode::MissingCampaign => {
            "Kampagne eintragen oder eine Kampagne für alle Zeilen wählen"
        }
        IssueCode::UnknownCampaign => "ID oder genauen Namen einer bestehenden Kampagne verwenden",
        IssueCode::AmbiguousCampaign => {
            "Die ID der Kampagne verwenden: Mehrere Kampagnen tragen diesen Namen"
        }
        IssueCode::DuplicateInFile => {
            "Zeile auslassen oder die doppelte Zeile entfernen, oder Doppelte erlauben, wenn beide angerufen werden sollen"
        }
        IssueCode::AlreadyExists => "Nichts zu tun: Der Lead ist schon beim Dienst",
        IssueCode::ServerRejected => {
            "Den Wert korrigieren, den der Dienst nennt, und erneut senden"
        }
        IssueCode::RequestFailed => {
            "Erneut senden: Fehlgeschlagene Zeilen werden wiederholt, gesendete nicht doppelt"
        }
        IssueCode::InvalidSecondaryPhone => {
            "Weitere Nummer korrigieren; der Lead ging ohne sie hinaus"
        }
        IssueCode::ExtensionDropped => "Nichts zu tun: Der Dienst nimmt keine Durchwahlen an",
        IssueCode::RemarkDropped => {
            "Nichts zu tun: Die Nummer ging ohne die Bemerkung hinaus; Bemerkungen in eine eigene Spalte schreiben, um sie als Variable zu senden"
        }
        IssueCode::CellError => "Formel in der Tabelle korrigieren",
        IssueCode::Suppressed => {
            "Nichts zu tun: Die Nummer steht auf einer Sperrliste und wird nie angerufen"
        }
        IssueCode::SuppressedSecondary => {
            "Nichts zu tun: Die weitere Nummer steht auf einer Sperrliste und wurde weggelassen"
        }
        IssueCode::ForeignNumber => {
            "Ländervorwahl der Nummer oder Land der Zeile prüfen; das Land nur erlauben, wenn die Kampagne dorthin anrufen darf"
        }
        IssueCode::ForeignSecondary => {
            "Ländervorwahl der weiteren Nummer prüfen; sie wurde weggelassen"
        }
        IssueCode::UnknownCountry => {
            "Land als Code (PL, SE, CZ) oder mit Namen schreiben, oder die Nummer mit Ländervorwahl (+48 …)"
        }
        IssueCode::BlockedNumberType => {
            "Eine andere Nummer dieser Person verwenden, oder diese Nummernart freigeben, wenn Anrufe dorthin gewollt sind"
        }
        IssueCode::BlockedSecondaryType => {
            "Nichts zu tun, außer es ist so gewollt: Die Art der weiteren Nummer ist gesperrt, sie wurde weggelassen"
        }
        IssueCode::NoConsent => {
            "Die Einwilligung der Person in der Einwilligungsspalte eintragen, bevor sie angerufen werden kann"
        }
        IssueCode::MissingVariable => {
            "Die Zelle füllen, die der Text des Assistenten braucht, oder solche Zeilen mit einer Warnung durchlassen"
        }
        IssueCode::SecondaryNotUpdated => {
            "Die Zweitnummer im Dienst von Hand ändern: Von hier aus lässt sie sich nicht aktualisieren"
        }
        IssueCode::LeadUpdated | IssueCode::LeadStopped => {
            "Nichts zu tun: Der Lead entspricht jetzt der Zeile"
        }
        IssueCode::ChangeFailed => "Nichts zu tun: Der nächste Sync sendet die Änderung erneut",
        IssueCode::Excluded => {
            "Nichts zu tun: Sie haben diese Zeile ausgeschlossen; auf ihrer Zeilenseite wieder einschließen"
        }
        IssueCode::HiddenRow | IssueCode::FilteredOut => {
            "Nichts zu tun, wenn sie absichtlich ausgeblendet ist; die Zeile in Excel einblenden, um sie zu senden"
        }
    }
}

fn fix_en(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => {
            "enter a phone number in the phone column, or name a column to fall back on: phone = [\"Telefon\", \"Mobil\"] takes the first one filled"
        }
        IssueCode::InvalidPhone => {
            "correct the number, or write it with its country code (+49 …) if it is foreign"
        }
        IssueCode::ScientificNotation => {
            "format the column as text and type the number again: Excel stored it in scientific notation and dropped its last digits"
        }
        IssueCode::MissingCampaign => "fill in the campaign column or pass --campaign",
        IssueCode::UnknownCampaign => "use the id or exact name of an existing campaign",
        IssueCode::AmbiguousCampaign => "use the campaign id: several campaigns share this name",
        IssueCode::DuplicateInFile => "remove the repeated row, or pass --allow-duplicates",
        IssueCode::AlreadyExists => "nothing to do: the lead is already on the service",
        IssueCode::ServerRejected => "correct the field the service names and import again",
        IssueCode::RequestFailed => "run the same command again: failed rows are retried",
        IssueCode::InvalidSecondaryPhone => {
            "correct the secondary number; the lead went without it"
        }
        IssueCode::ExtensionDropped => "none needed: the service takes no extensions",
        IssueCode::RemarkDropped => {
            "none needed: the number was kept and sent without the remark; put remarks in a column of their own to send them as a variable"
        }
        IssueCode::CellError => "fix the formula in the spreadsheet",
        IssueCode::Suppressed => {
            "none needed: the number is on a do-not-call list and is never sent"
        }
        IssueCode::SuppressedSecondary => {
            "none needed: the secondary number is on a do-not-call list and was left out"
        }
        IssueCode::ForeignNumber => {
            "check the number's country code or the row's country; widen `countries` only if the campaign may call there"
        }
        IssueCode::ForeignSecondary => "check the secondary number's country code; it was left out",
        IssueCode::UnknownCountry => {
            "write the country as a code (PL, SE, CZ) or a name, or the number with its country code (+48 …): a number without one is never read in another country"
        }
        IssueCode::BlockedNumberType => {
            "use another number for this person, or change `block_number_types` if calling this type is intended"
        }
        IssueCode::BlockedSecondaryType => {
            "none needed unless intended: the secondary number's type is blocked and it was left out"
        }
        IssueCode::NoConsent => {
            "record the person's consent in the consent column before they can be called"
        }
        IssueCode::MissingVariable => {
            "fill in the cell the assistant's text needs, or set missing_variables = \"warn\" in the mapping to send such rows anyway"
        }
        IssueCode::SecondaryNotUpdated => "change the secondary number on the service by hand",
        IssueCode::LeadUpdated | IssueCode::LeadStopped => "none needed",
        IssueCode::ChangeFailed => "none needed: the next sync tries again",
        IssueCode::Excluded => {
            "none needed: you left this row out; include it again on its row page in `leadsync ui`, or remove it from the edits file"
        }
        IssueCode::HiddenRow => {
            "none needed if you hid it on purpose; show the row in Excel, or set hidden_rows = \"read\" in the mapping"
        }
        IssueCode::FilteredOut => {
            "none needed if you filtered on purpose; clear the filter in Excel, or set hidden_rows = \"read\" in the mapping"
        }
    }
}

fn fix_de(code: IssueCode) -> &'static str {
    match code {
        IssueCode::MissingPhone => {
            "eine Telefonnummer in die Telefonspalte eintragen oder eine Ersatzspalte nennen: phone = [\"Telefon\", \"Mobil\"] nimmt die erste gefüllte"
        }
        IssueCode::InvalidPhone => {
            "die Nummer korrigieren oder mit Ländervorwahl (+49 …) schreiben, wenn sie ausländisch ist"
        }
        IssueCode::ScientificNotation => {
            "die Spalte als Text formatieren und die Nummer neu eingeben: Excel hat sie in wissenschaftlicher Schreibweise gespeichert und die letzten Ziffern verworfen"
        }
        IssueCode::MissingCampaign => "die Kampagnenspalte füllen oder --campaign angeben",
        IssueCode::UnknownCampaign => {
            "die ID oder den genauen Namen einer bestehenden Kampagne verwenden"
        }
        IssueCode::AmbiguousCampaign => {
            "die Kampagnen-ID verwenden: mehrere Kampagnen tragen diesen Namen"
        }
        IssueCode::DuplicateInFile => {
            "die doppelte Zeile entfernen oder --allow-duplicates angeben"
        }
        IssueCode::AlreadyExists => "nichts zu tun: der Lead ist schon beim Dienst",
        IssueCode::ServerRejected => {
            "das Feld korrigieren, das der Dienst nennt, und erneut importieren"
        }
        IssueCode::RequestFailed => {
            "denselben Befehl erneut ausführen: fehlgeschlagene Zeilen werden wiederholt"
        }
        IssueCode::InvalidSecondaryPhone => {
            "die weitere Nummer korrigieren; der Lead ging ohne sie hinaus"
        }
        IssueCode::ExtensionDropped => "nichts nötig: der Dienst nimmt keine Durchwahlen an",
        IssueCode::RemarkDropped => {
            "nichts nötig: die Nummer wurde ohne die Bemerkung gesendet; Bemerkungen in eine eigene Spalte schreiben, um sie als Variable zu senden"
        }
        IssueCode::CellError => "die Formel in der Tabelle korrigieren",
        IssueCode::Suppressed => {
            "nichts nötig: die Nummer steht auf einer Sperrliste und wird nie gesendet"
        }
        IssueCode::SuppressedSecondary => {
            "nichts nötig: die weitere Nummer steht auf einer Sperrliste und wurde weggelassen"
        }
        IssueCode::ForeignNumber => {
            "die Ländervorwahl der Nummer oder das Land der Zeile prüfen; `countries` nur erweitern, wenn die Kampagne dorthin anrufen darf"
        }
        IssueCode::ForeignSecondary => {
            "die Ländervorwahl der weiteren Nummer prüfen; sie wurde weggelassen"
        }
        IssueCode::UnknownCountry => {
            "das Land als Code (PL, SE, CZ) oder mit Namen schreiben, oder die Nummer mit Ländervorwahl (+48 …): eine Nummer ohne sie wird nie für ein anderes Land gelesen"
        }
        IssueCode::BlockedNumberType => {
            "eine andere Nummer dieser Person verwenden oder `block_number_types` ändern, wenn Anrufe dieser Art gewollt sind"
        }
        IssueCode::BlockedSecondaryType => {
            "nichts nötig, außer es ist gewollt: die Art der weiteren Nummer ist gesperrt, sie wurde weggelassen"
        }
        IssueCode::NoConsent => {
            "die Einwilligung der Person in der Einwilligungsspalte eintragen, bevor sie angerufen werden kann"
        }
        IssueCode::MissingVariable => {
            "die Zelle füllen, die der Text des Assistenten braucht, oder missing_variables = \"warn\" in der Zuordnung setzen, um solche Zeilen trotzdem zu senden"
        }
        IssueCode::SecondaryNotUpdated => "die Zweitnummer im Dienst von Hand ändern",
        IssueCode::LeadUpdated | IssueCode::LeadStopped => "nichts nötig",
        IssueCode::ChangeFailed => "nichts nötig: der nächste Sync versucht es erneut",
        IssueCode::Excluded => {
            "nichts nötig: Sie haben diese Zeile ausgeschlossen; in `leadsync ui` auf ihrer Zeilenseite wieder einschließen oder aus der Änderungsdatei entfernen"
        }
        IssueCode::HiddenRow => {
            "nichts nötig, wenn sie absichtlich ausgeblendet ist; die Zeile in Excel einblenden oder hidden_rows = \"read\" in der Zuordnung setzen"
        }
        IssueCode::FilteredOut => {
            "nichts nötig, wenn absichtlich gefiltert; den Filter in Excel aufheben oder hidden_rows = \"read\" in der Zuordnung setzen"
        }
    }
}
