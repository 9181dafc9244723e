#!/usr/bin/env python3
"""Random small XLSX workbooks for comparing leadsync's worksheet reader with calamine's.

usage: scripts/xlsx_fuzz_corpus.py DIR [COUNT] [FIRST_SEED]
then:  LEADSYNC_XLSX_CORPUS=DIR cargo test --lib source::xlsx -- --nocapture

Each workbook is one sheet drawn from what real files hold and what they rarely do: entities,
CR/LF, CDATA, comments inside values, namespace prefixes, rich and phonetic runs, every cell
type, empty elements, both quotes, rows and cells without references, date and duration
styles, the 1904 epoch. The test compares every cell with calamine's cell reader.
"""
import os
import random
import sys
import zipfile


def workbook(seed, path):
    random.seed(seed)
    texts = ["a", "  pad  ", "x &amp; y", "&lt;b&gt;", "line1\r\nline2", "cr\rx", "&#13;&#10;", "_x000D_", "_x005F_x000D_", "Müller", "日本", "&#x1F600;", " ", "", "tab\tend", "\n lead", "a_xD83D__xDE00_b", "&quot;q&apos;", "1e5", "007", "-0", "3.14159265358979", "TRUE", "#N/A"]
    def text():
        t = random.choice(texts)
        r = random.random()
        if r < 0.1: return "<![CDATA[" + t.replace("&", "&amp;") + "]]>"
        if r < 0.2: return t + "<!-- c -->" + random.choice(texts)
        return t
    def tnode(p=""):
        sp = random.choice(["", ' xml:space="preserve"'])
        if random.random() < 0.1: return f"<{p}t{sp}/>"
        return f"<{p}t{sp}>{text()}</{p}t>"
    def string(p=""):
        r = random.random()
        if r < 0.5: return tnode(p)
        parts = []
        for _ in range(random.randint(1,3)):
            parts.append(f"<{p}r><{p}rPr><{p}b/></{p}rPr>{tnode(p)}</{p}r>")
        if random.random() < 0.3: parts.append(f'<{p}rPh sb="0" eb="1">{tnode(p)}</{p}rPh>')
        if random.random() < 0.2: parts.append(tnode(p))
        return "".join(parts)
    nums = ["1", "0", "-3.5", "45352", "45352.5", "0.25", "1.5e3", "", " 4", "12345678901234567", "1E-5", ".5", "NaN", "inf", "abc"]
    p = random.choice(["", "x:"])
    nsst = random.randint(0, 6)
    sst = "".join(f"<{p}si>{string(p)}</{p}si>" if random.random() > 0.1 else f"<{p}si/>" for _ in range(nsst))
    rows = []
    rownum = 0
    for _ in range(random.randint(1, 6)):
        rownum += random.randint(1, 2)
        rattr = f' r="{rownum}"' if random.random() < 0.8 else ""
        cells = []
        col = 0
        for _ in range(random.randint(0, 5)):
            col += random.randint(1, 2)
            ref = ""
            if random.random() < 0.8:
                c = chr(64 + col) if col <= 26 else "A" + chr(64 + col - 26)
                ref = f' r="{c}{rownum}"'
            s = random.choice(["", ' s="0"', ' s="1"', ' s="2"', ' s="3"', ' s="9"'])
            kind = random.choice(["", "n", "s", "b", "e", "str", "inlineStr", "d"])
            t = f' t="{kind}"' if kind else ""
            q = random.choice(['"', "'"])
            if q == "'": ref, s, t = ref.replace('"', "'"), s.replace('"', "'"), t.replace('"', "'")
            if kind == "s": v = str(random.randint(0, max(nsst - 1, 0))) if nsst else ""
            elif kind == "b": v = random.choice(["0", "1", "true", " 1 ", ""])
            elif kind == "e": v = random.choice(["#N/A", "#DIV/0!", "#REF!", "#VALUE!", "", "&amp;", "<!-- c -->#N/A"])
            elif kind == "d": v = "2024-03-01T10:30:00"
            elif kind in ("str",): v = random.choice(texts)
            elif kind == "inlineStr": v = None
            else: v = random.choice(nums)
            ws = random.choice(["", "\n  "])
            if kind == "inlineStr":
                inner = f"<{p}is>{string(p)}</{p}is>" if random.random() > 0.1 else f"<{p}is/>"
            else:
                inner = (f"<{p}f>A1+1</{p}f>" if random.random() < 0.2 else "") + (f"<{p}v>{v}</{p}v>" if random.random() > 0.1 else f"<{p}v/>")
            if random.random() < 0.1:
                cells.append(f"{ws}<{p}c{ref}{s}{t}/>")
            else:
                cells.append(f"{ws}<{p}c{ref}{s}{t}>{inner}</{p}c>")
        if cells or random.random() < 0.5:
            rows.append(f"<{p}row{rattr}>{''.join(cells)}</{p}row>")
        else:
            rows.append(f"<{p}row{rattr}/>")
    dim = random.choice(["", f'<{p}dimension ref="A1:E9"/>', f'<{p}dimension ref="B2"/>'])
    sheet = f'<?xml version="1.0" encoding="UTF-8"?><{p}worksheet xmlns{":x" if p else ""}="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{dim}<{p}sheetData>{"".join(rows)}</{p}sheetData></{p}worksheet>'
    styles = f'<styleSheet><numFmts count="2"><numFmt numFmtId="164" formatCode="{random.choice(["dd/mm/yyyy", "[h]:mm", "0.00", "&quot;d&quot;0", "[Red][&lt;-25]General;General", "yyyy-mm-dd hh:mm"])}"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="46"/></cellXfs></styleSheet>'
    z = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
    z.writestr("[Content_Types].xml", '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>')
    z.writestr("_rels/.rels", '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>')
    z.writestr("xl/workbook.xml", '<workbook xmlns:r="r"><workbookPr date1904="%s"/><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>' % random.choice(["0", "1"]))
    z.writestr("xl/_rels/workbook.xml.rels", '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>')
    z.writestr("xl/worksheets/sheet1.xml", sheet)
    if nsst or random.random() < 0.5:
        z.writestr("xl/sharedStrings.xml", f'<{p}sst xmlns{":x" if p else ""}="main">{sst}</{p}sst>')
    if random.random() < 0.8:
        z.writestr("xl/styles.xml", styles)
    z.close()


if __name__ == "__main__":
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    os.makedirs(out, exist_ok=True)
    for seed in range(first, first + count):
        workbook(seed, os.path.join(out, f"random_{seed}.xlsx"))
