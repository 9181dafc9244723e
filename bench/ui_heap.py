#!/usr/bin/env python3
"""The browser's memory does not grow with the sheet: leadsync ui checks a small sheet and a big
one, and Chromium (headless, through chromedriver, loopback only) opens each check's page, its
rows page by page and a search, then reads its JavaScript heap (performance.memory, precise)
and the DOM's node count.

usage: bench/ui_heap.py BIN SMALL BIG   e.g. target/release/leadsync small.csv leads_1m.csv
needs chromium and chromium-driver (Debian packages); Python's standard library only."""
import json, os, re, socket, subprocess, sys, tempfile, time, urllib.request

BIN, SMALL, BIG = sys.argv[1:4]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(method, url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read() or b"null")


def checked_page(origin, opener, path):
    """Starts the check of `path` through the UI and returns the run's address once done."""
    loc = opener.open(urllib.request.Request(origin + "/source/location",
        data=urllib.parse.urlencode({"location": path}).encode(), headers={"Origin": origin}))
    source = loc.geturl().rsplit("/reading/", 1)[1].split("?")[0]
    run = opener.open(urllib.request.Request(origin + "/check/" + source,
        data=b"campaign=1", headers={"Origin": origin}))
    url = run.geturl()
    while b"data-refresh" in opener.open(url).read():
        time.sleep(0.1)
    return url


def main():
    import http.cookiejar, urllib.parse
    state = tempfile.mkdtemp()
    ui = subprocess.Popen([BIN, "--state-dir", state, "ui", "--no-open", "--port", "0"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    start_url = ui.stdout.readline().strip()
    origin = re.match(r"(http://[^/]+)", start_url).group(1)
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(start_url)
    port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            call("GET", base + "/status"); break
        except Exception:
            time.sleep(0.1)
    try:
        for name, path in (("small", SMALL), ("big", BIG)):
            run = checked_page(origin, opener, os.path.abspath(path))
            caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--enable-precise-memory-info",
                         f"--user-data-dir={tempfile.mkdtemp()}"]}}}}
            session = call("POST", base + "/session", caps)["value"]["sessionId"]
            s = f"{base}/session/{session}"
            call("POST", s + "/url", {"url": start_url})
            for page in ["", "?after=500", "?status=rejected", "?q=m%C3%BCller"]:
                call("POST", s + "/url", {"url": run + page})
            call("POST", s + "/url", {"url": run})
            heap = call("POST", s + "/execute/sync", {"script":
                "return [performance.memory.usedJSHeapSize, document.getElementsByTagName('*').length]", "args": []})["value"]
            lines = len(open(path, "rb").read().splitlines())
            print(f"{name}: {lines} lines, JS heap {heap[0] / 1024:.0f} KiB, {heap[1]} DOM elements")
            call("DELETE", s)
    finally:
        driver.kill(); ui.kill()


main()
