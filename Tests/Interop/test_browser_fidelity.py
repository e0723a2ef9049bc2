"""The differential test (issue 40, "Fidelity"): the battery of fidelity_cases.py run in Debian's
headless Chromium twice — with Chromium's own WebAuthn and a CDP virtual authenticator (the
oracle), and with the passkeyd extension and native host against a real passkeyd (the subject) —
and the normalized outcomes compared. Every counted case must agree; each exception is asserted
on its own terms (what passkeyd must answer there); host gaps are reported. The counts by area
are printed (run with -s to see them) and kept in docs/browser-fidelity.md."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from browser_driver import Chromium, chromium_path
from browser_flows import EXTENSION
from fidelity_cases import CASES, Oracle, Site, areas, run_case
from passkeyd_pin import passkeyctl, passkeyctl_binary

pytestmark = pytest.mark.skipif(chromium_path() is None, reason="Debian's chromium is not installed (make deps)")

# The extension under test; PASSKEYD_FIDELITY_EXTENSION points at another copy of it.
SUBJECT_EXTENSION = os.environ.get("PASSKEYD_FIDELITY_EXTENSION", EXTENSION)
# How long the subject's authenticator holds a ceremony for the concurrency cases (ms).
HOLD_MS = 8000


class Subject:
    """Chromium with the passkeyd extension, its host installed with --automation, against `socket`."""

    def __init__(self, socket: str):
        self.socket = socket
        self.home = tempfile.mkdtemp(prefix="passkeyd-fidelity-home-")
        env = {"HOME": self.home, "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
               "XDG_DATA_HOME": os.path.join(self.home, ".local", "share")}
        base = {k: v for k, v in os.environ.items() if not k.startswith("PASSKEY")}
        profile = os.path.join(self.home, "chromium")
        done = subprocess.run([passkeyctl_binary(), "--socket", socket, "browser", "install", "--chromium",
                               "--profile", profile, "--automation"], env={**base, **env},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        try:
            self.browser = Chromium(SUBJECT_EXTENSION, profile=profile, env=env)
            self.browser.extension_ready()
        except BaseException:
            shutil.rmtree(self.home, ignore_errors=True)
            raise

    def page(self, url: str):
        page = self.browser.new_page(url)
        page.send("Page.bringToFront")
        return page

    def hold(self, page, on: bool) -> None:
        """The next ceremony is held HOLD_MS by the authenticator (passkeyd's latency fault)."""
        args = ("fault", "set", f"latency={HOLD_MS}", "--rp", "localhost", "--count", "1") if on \
            else ("fault", "clear")
        done = passkeyctl(self.socket, *args, pin=None)
        assert done.returncode == 0, done.stderr

    def prepare(self, page) -> None:
        """passkeyd stores as many discoverable credentials as the cases make: nothing to do."""

    def stored(self, page) -> int:
        """The discoverable credentials passkeyd holds for localhost (`passkeyctl list`)."""
        done = passkeyctl(self.socket, "--json", "list", "--rp", "localhost", pin=None)
        assert done.returncode == 0, done.stderr
        return sum(len(rp["credentials"]) for rp in json.loads(done.stdout)["relyingParties"])

    def close(self) -> None:
        try:
            self.browser.close()
        finally:
            shutil.rmtree(self.home, ignore_errors=True)


def run_all(side, site: Site) -> dict[str, object]:
    page = side.page(site.origin + "/")
    outcomes = {}
    for case in CASES:
        side.prepare(page)
        if case.hold:
            side.hold(page, True)
        try:
            outcomes[case.area + " / " + case.name] = run_case(side, page, case)
        finally:
            if case.hold:
                side.hold(page, False)
    return outcomes


@pytest.fixture(scope="module")
def site():
    s = Site().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def oracle_outcomes(site):
    oracle = Oracle()
    try:
        return run_all(oracle, site)
    finally:
        oracle.close()


@pytest.fixture(scope="module")
def subject_outcomes(site, daemon):
    subject = Subject(daemon.socket)
    try:
        return run_all(subject, site)
    finally:
        subject.close()


def test_the_battery_is_large_enough():
    counted = [c for c in CASES if c.exception is None and c.gap is None]
    assert len(counted) >= 60, f"only {len(counted)} counted cases"
    assert len({c.area + c.name for c in CASES}) == len(CASES), "case names are unique within their area"


def test_passkeyd_agrees_with_chromium_on_every_counted_case(oracle_outcomes, subject_outcomes):
    disagreements, exceptions, gaps = [], [], []
    counted: dict[str, int] = {}
    for case in CASES:
        key = case.area + " / " + case.name
        oracle, subject = oracle_outcomes[key], subject_outcomes[key]
        if case.gap is not None:
            gaps.append(f"{key}: {'agrees now' if oracle == subject else 'differs'} "
                        f"(Chromium {json.dumps(oracle)[:160]}, passkeyd {json.dumps(subject)[:160]}) — {case.gap.needs}")
        elif case.exception is not None:
            expected = case.exception.expected(oracle)
            if (_reduced(subject) if expected == {"value": "resolved"} else subject) != expected:
                disagreements.append(f"{key} [exception: passkeyd must give {json.dumps(expected)[:300]}]: "
                                     f"passkeyd {json.dumps(subject)[:300]}")
            exceptions.append(f"{key} ({case.exception.kind}): Chromium {json.dumps(_reduced(oracle))[:120]}")
        elif oracle != subject:
            disagreements.append(f"{key}:\n    Chromium {json.dumps(oracle)[:400]}\n    passkeyd {json.dumps(subject)[:400]}")
        else:
            counted[case.area] = counted.get(case.area, 0) + 1
    if os.environ.get("PASSKEYD_FIDELITY_DUMP"):  # both sides' outcomes, for reading
        with open(os.environ["PASSKEYD_FIDELITY_DUMP"], "w") as f:
            json.dump({"chromium": oracle_outcomes, "passkeyd": subject_outcomes}, f, indent=1)
    print(f"\nfidelity: {sum(counted.values())} cases agree, by area: {json.dumps(counted)}")
    print(f"fidelity: {len(exceptions)} justified exceptions:\n  " + "\n  ".join(exceptions))
    print(f"fidelity: {len(gaps)} host gaps (not counted):\n  " + "\n  ".join(gaps))
    assert not disagreements, f"{len(disagreements)} of {len(CASES)} cases disagree:\n" + "\n".join(disagreements)
    assert sum(counted.values()) >= 60 and set(counted) == set(areas()) - {"none"}


def _reduced(outcome):
    """An exception's outcome as its expectation is written: the error, or that it resolved."""
    if isinstance(outcome, dict) and "error" in outcome:
        return {"error": outcome["error"]}
    if isinstance(outcome, dict) and "value" in outcome:
        return {"value": "resolved"}
    return outcome
