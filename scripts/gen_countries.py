#!/usr/bin/env python3
"""Writes src/phone/countries.tsv: every ISO 3166-1 country with its alpha-2 and alpha-3 codes
and its names in English, German, French, Spanish, Italian and Dutch, its names in its own
official languages (endonyms: Polska, Sverige, Česko, Ελλάδα), from Debian's iso-codes package
(JSON + gettext catalogues), plus the everyday variants people type (UK, USA, Holland).

    apt-get install iso-codes && python3 scripts/gen_countries.py

Run it again when iso-codes gains a country; the output is committed so builds need nothing.
"""
import gettext
import json
import pathlib

LANGUAGES = ["de", "fr", "es", "it", "nl"]

# Each country's own official language(s), as iso-codes names its catalogues (CLDR's official
# languages, cut to the ones people write a country cell in): a customer list from Warsaw says
# "Polska", not "Poland". All of Europe and the main calling markets; a country left out is
# still known by its names in the six languages above.
OWN_LANGUAGES = {
    # Europe
    "AD": ["ca"], "AL": ["sq"], "AT": ["de"], "BA": ["bs", "hr", "sr"], "BE": ["nl", "fr", "de"],
    "BG": ["bg"], "BY": ["be", "ru"], "CH": ["de", "fr", "it", "rm"], "CY": ["el", "tr"],
    "CZ": ["cs"], "DE": ["de"], "DK": ["da"], "EE": ["et"], "ES": ["es", "ca", "eu", "gl"],
    "FI": ["fi", "sv"], "FO": ["fo"], "FR": ["fr"], "GR": ["el"], "HR": ["hr"], "HU": ["hu"],
    "IE": ["ga"], "IS": ["is"], "IT": ["it"], "LI": ["de"], "LT": ["lt"], "LU": ["lb", "fr", "de"],
    "LV": ["lv"], "MC": ["fr"], "MD": ["ro"], "ME": ["sr@latin", "sr"], "MK": ["mk"], "MT": ["mt"],
    "NL": ["nl"], "NO": ["nb", "nn"], "PL": ["pl"], "PT": ["pt"], "RO": ["ro"],
    "RS": ["sr", "sr@latin"], "RU": ["ru"], "SE": ["sv"], "SI": ["sl"], "SK": ["sk"], "SM": ["it"],
    "TR": ["tr"], "UA": ["uk"], "VA": ["it"], "XK": ["sq", "sr"],
    # The main calling markets elsewhere
    "AE": ["ar"], "AR": ["es"], "BD": ["bn"], "BR": ["pt_BR"], "CA": ["fr"], "CL": ["es"],
    "CN": ["zh_CN"], "CO": ["es"], "CR": ["es"], "DO": ["es"], "DZ": ["ar"], "EC": ["es"],
    "EG": ["ar"], "HK": ["zh_HK"], "ID": ["id"], "IL": ["he"], "IN": ["hi"], "IR": ["fa"],
    "JP": ["ja"], "KR": ["ko"], "KW": ["ar"], "MA": ["ar", "fr"], "MX": ["es"], "MY": ["ms"],
    "PE": ["es"], "PH": ["fil"], "PK": ["ur"], "QA": ["ar"], "SA": ["ar"], "SG": ["ms", "zh_CN"],
    "TH": ["th"], "TN": ["ar"], "TW": ["zh_TW"], "UY": ["es"], "VE": ["es"], "VN": ["vi"],
    "ZA": ["af"],
}

# Names people write that no catalogue lists: short forms, old names, parts of a country.
VARIANTS = {
    "GB": ["UK", "U.K.", "Great Britain", "Britain", "England", "Scotland", "Wales",
           "Northern Ireland", "Grossbritannien", "Großbritannien", "Grande-Bretagne",
           "Angleterre", "Gran Bretaña", "Inglaterra", "Gran Bretagna", "Inghilterra",
           "Groot-Brittannië", "Engeland", "Vereinigtes Koenigreich"],
    "US": ["USA", "U.S.A.", "U.S.", "US of A", "America", "United States", "Amerika",
           "Amérique", "EEUU", "EE.UU.", "Stati Uniti d'America", "Verenigde Staten van Amerika",
           "Vereinigte Staaten von Amerika", "États-Unis d'Amérique"],
    "DE": ["BRD", "Bundesrepublik Deutschland", "Germany (DE)", "Deutschland (DE)"],
    "CH": ["Schweiz", "Suisse", "Svizzera", "Svizra", "Confoederatio Helvetica", "Helvetia",
           "Zwitserland", "Suiza"],
    "AT": ["Österreich", "Oesterreich", "Autriche", "Oostenrijk"],
    "NL": ["Holland", "Nederland", "Niederlande", "Pays-Bas", "Países Bajos", "Paesi Bassi",
           "The Netherlands"],
    "CZ": ["Czech Republic", "Tschechien", "Tschechische Republik", "République tchèque",
           "República Checa", "Repubblica Ceca", "Tsjechië"],
    "KR": ["South Korea", "Korea", "Südkorea", "Corée du Sud", "Corea del Sur", "Corea del Sud",
           "Zuid-Korea"],
    "RU": ["Russia", "Russland", "Russie", "Rusia", "Russia", "Rusland", "Россия"],
    "GR": ["Hellas", "Ellada"],
    "IR": ["Iran"],
    "SY": ["Syria", "Syrien"],
    "VN": ["Vietnam"],
    "TW": ["Taiwan"],
    "BO": ["Bolivia"],
    "VE": ["Venezuela"],
    "TZ": ["Tanzania"],
    "MD": ["Moldova", "Moldawien"],
    "LA": ["Laos"],
    "KP": ["North Korea", "Nordkorea"],
    "CD": ["DR Congo", "DRC", "Democratic Republic of the Congo"],
    "CI": ["Ivory Coast", "Elfenbeinküste", "Côte d'Ivoire"],
    "MK": ["Macedonia", "North Macedonia", "Mazedonien", "Nordmazedonien"],
    "TR": ["Turkey", "Türkei", "Turkiye", "Türkiye", "Turquie", "Turquía", "Turchia", "Turkije"],
    "AE": ["UAE", "U.A.E.", "Emirates", "VAE"],
    "VA": ["Vatican", "Vatican City", "Vatikan"],
    "PS": ["Palestine", "Palästina"],
    "BA": ["Bosnia", "Bosnien"],
    "LU": ["Luxemburg", "Lëtzebuerg"],
    "BE": ["Belgique", "België", "Belgien"],
    "LI": ["Liechtenstein"],
    "FR": ["Frankreich", "Francia", "Frankrijk"],
    "IT": ["Italien", "Italie", "Italia", "Italië"],
    "ES": ["Spanien", "Espagne", "España", "Spagna", "Spanje"],
}


def catalogue(language):
    """The iso_3166-1 catalogue of `language`, or None when iso-codes has none."""
    try:
        return gettext.translation("iso_3166-1", "/usr/share/locale", languages=[language])
    except FileNotFoundError:
        print(f"no iso_3166-1 catalogue for `{language}`: its endonyms are left out")
        return None


def names(catalogues, own, entry):
    english = [entry[k] for k in ("name", "official_name", "common_name") if k in entry]
    found = list(english)
    for translation in catalogues:
        found.extend(translation.gettext(name) for name in english)
    for language in OWN_LANGUAGES.get(entry["alpha_2"], []):
        if own.get(language):
            found.extend(own[language].gettext(name) for name in english)
    found.extend(VARIANTS.get(entry["alpha_2"], []))
    unique = []
    for name in found:
        if name not in unique and "\t" not in name and "|" not in name:
            unique.append(name)
    return unique


def main():
    data = json.load(open("/usr/share/iso-codes/json/iso_3166-1.json"))["3166-1"]
    catalogues = [gettext.translation("iso_3166-1", "/usr/share/locale", languages=[lang])
                  for lang in LANGUAGES]
    own = {lang: catalogue(lang) for langs in OWN_LANGUAGES.values() for lang in langs}
    rows = [(entry, names(catalogues, own, entry))
            for entry in sorted(data, key=lambda e: e["alpha_2"])]
    # A catalogue name two countries share (a translation that is also another's name) names
    # neither; the hand-written variants are deliberate and stay.
    owners = {}
    for entry, found in rows:
        for name in found:
            owners.setdefault(name.casefold(), set()).add(entry["alpha_2"])
    shared = {name for name, codes in owners.items() if len(codes) > 1}
    lines = ["# alpha-2\talpha-3\tnames (en, de, fr, es, it, nl, own languages, variants); "
             "generated by scripts/gen_countries.py from Debian's iso-codes"]
    for entry, found in rows:
        mine = VARIANTS.get(entry["alpha_2"], [])
        kept = [n for n in found if n.casefold() not in shared or n in mine]
        lines.append(f"{entry['alpha_2']}\t{entry['alpha_3']}\t{'|'.join(kept)}")
    if shared:
        print("names shared by several countries, left out:", sorted(shared))
    out = pathlib.Path(__file__).resolve().parent.parent / "src" / "phone" / "countries.tsv"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(data)} countries -> {out}")


if __name__ == "__main__":
    main()
