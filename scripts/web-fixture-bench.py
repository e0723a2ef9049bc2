#!/usr/bin/env python3
"""A Playwright test's setup on passkeyd against the same on Chromium's own virtual
authenticator, for `make bench` (issue 41: target ≤ 1.5× Chrome's time).

One round, from nothing to a verified sign-in, timed the way a test feels it:
- passkeyd: a throw-away daemon (passkeyd.testing.VirtualAuthenticator), a known P-256 key
  added with add_credential, Chromium with the passkeyd extension in a fresh profile
  (passkeyd.playwright.launch_persistent_context: `passkeyctl browser args`, the browser, the
  extension's service worker), the site's page, one discoverable sign-in verified by the
  py_webauthn site;
- Chrome: playwright.chromium.launch, a context and a page, WebAuthn.addVirtualAuthenticator and
  addCredential over CDP with the same kind of key, the page, the same sign-in.
Rounds alternate (passkeyd, Chrome, passkeyd, ...) in one process with one Playwright driver,
so both see the same machine. Closing is timed apart. Prints one JSON object on stdout: each
side's rounds in milliseconds (and their parts), the medians, and passkeyd's median over
Chrome's.

    scripts/web-fixture-bench.py [--rounds 5] [--passkeyd BIN] [--passkeyctl BIN]

Exit 3 with a sentence on stderr when Chromium, Playwright or the binaries are missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "integrations" / "python"), str(REPO / "Tests" / "Interop"),
                str(REPO / "Tests" / "Interop" / "webtests")]


def missing(sentence: str) -> None:
    print(f"web-fixture-bench: {sentence}", file=sys.stderr)
    sys.exit(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--passkeyd", default=os.environ.get("PASSKEYD_BIN") or str(REPO / ".build/debug/passkeyd"))
    parser.add_argument("--passkeyctl",
                        default=os.environ.get("PASSKEYCTL_BIN") or str(REPO / ".build/debug/passkeyctl"))
    options = parser.parse_args()
    for binary in (options.passkeyd, options.passkeyctl):
        if not os.access(binary, os.X_OK):
            missing(f"{binary} is not built (swift build --product {Path(binary).name})")
    chromium = os.environ.get("PASSKEYD_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        missing("Debian's chromium is not installed (make deps)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("Playwright is not installed in this Python (make deps)")
    os.environ["PASSKEYD_BIN"], os.environ["PASSKEYCTL_BIN"] = options.passkeyd, options.passkeyctl

    import passkeyd.playwright
    from browser_flows import RelyingParty, assert_signed_in, sign_in
    from chrome_authenticator import ChromeVirtualAuthenticator
    from passkeyd.testing import VirtualAuthenticator
    from test_passkeys import add_known_account

    site = RelyingParty().start()
    rounds: dict[str, list[dict]] = {"passkeyd": [], "chrome": []}

    def passkeyd_round(playwright) -> dict:
        profile = tempfile.mkdtemp(prefix="passkeyd-bench-profile-")
        began = time.perf_counter()
        authenticator = VirtualAuthenticator(binary=options.passkeyd)
        account = add_known_account(site, authenticator)
        daemon = time.perf_counter()
        context = passkeyd.playwright.launch_persistent_context(playwright, authenticator, profile,
                                                                executable_path=chromium,
                                                                passkeyctl=options.passkeyctl)
        page = context.pages[0]
        ready = time.perf_counter()
        page.goto(site.url())
        assert_signed_in(sign_in(page), site, account.name)
        done = time.perf_counter()
        context.close()
        authenticator.close()
        shutil.rmtree(profile, ignore_errors=True)
        closed = time.perf_counter()
        return {"total": ms(done - began), "authenticator": ms(daemon - began), "browser": ms(ready - daemon),
                "signIn": ms(done - ready), "close": ms(closed - done)}

    def chrome_round(playwright) -> dict:
        began = time.perf_counter()
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_context().new_page()
        launched = time.perf_counter()
        authenticator = ChromeVirtualAuthenticator(page.context.new_cdp_session(page))
        account = add_known_account(site, authenticator)
        ready = time.perf_counter()
        page.goto(site.url())
        assert_signed_in(sign_in(page), site, account.name)
        done = time.perf_counter()
        browser.close()
        closed = time.perf_counter()
        return {"total": ms(done - began), "browser": ms(launched - began), "authenticator": ms(ready - launched),
                "signIn": ms(done - ready), "close": ms(closed - done)}

    try:
        with sync_playwright() as playwright:
            chrome_round(playwright)  # warm the page cache for both: the first launch reads chromium from disk
            for _ in range(options.rounds):
                rounds["passkeyd"].append(passkeyd_round(playwright))
                rounds["chrome"].append(chrome_round(playwright))
    finally:
        site.stop()
    medians = {side: statistics.median(r["total"] for r in results) for side, results in rounds.items()}
    report = {"rounds": rounds, "medianMilliseconds": medians,
              "passkeydOverChrome": round(medians["passkeyd"] / medians["chrome"], 2), "target": 1.5}
    print(json.dumps(report, indent=2))
    print(f"fixture ready + one sign-in: passkeyd {medians['passkeyd']:.0f} ms, Chrome's virtual authenticator "
          f"{medians['chrome']:.0f} ms ({report['passkeydOverChrome']}×, target ≤ 1.5×)", file=sys.stderr)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


if __name__ == "__main__":
    main()
