"""The shipped package's Firefox ESR fixture (passkeyd.firefox, `passkeyd_firefox`) and the
browser fixtures loaded by the package's pytest11 entry point (issue 41).

- `passkeyd_firefox`, found with no `-p` and no conftest import: Debian's headless Firefox ESR
  with the passkeyd add-on, bound to the test's own passkeyd (`passkeyd_authenticator`),
  registers and signs in on the py_webauthn site (browser_flows.RelyingParty); py_webauthn
  verifies both, and the authenticator holds the passkey.
- In a pytest of its own (a folder with no conftest): the browser fixtures are listed by
  `--fixtures`; loading the plugin imports neither Playwright nor Selenium; naming
  passkeyd.pytest_browser as well (`-p`, a conftest's `pytest_plugins`) is no double registration.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from browser_driver import firefox_path
from browser_flows import ALGORITHMS, RelyingParty, assert_registered, assert_signed_in, base64url, new_name, register, sign_in

HERE = Path(__file__).resolve().parent
# The tree's package (its pytest_plugin.py), whatever an earlier `pip install` left in the venv;
# the entry point itself is the installed distribution's.
PACKAGE = str(HERE.parent.parent / "integrations" / "python")
BROWSER_FIXTURES = ("passkeyd_authenticator", "passkeyd_context", "passkeyd_page", "passkeyd_driver",
                    "passkeyd_firefox")


@pytest.fixture(scope="module")
def rp():
    site = RelyingParty().start()
    yield site
    site.stop()


@pytest.mark.skipif(firefox_path() is None, reason="Debian's firefox-esr is not installed (make deps)")
def test_the_firefox_fixture_registers_and_signs_in_with_the_tests_passkeyd(passkeyd_firefox, passkeyd_authenticator,
                                                                            rp):
    assert passkeyd_firefox.installed.automation is True
    assert passkeyd_firefox.installed.socket == passkeyd_authenticator.socket
    assert passkeyd_firefox.installed.manifest.startswith(os.path.join(passkeyd_firefox.home, ".mozilla", ""))
    name = new_name("firefox-fixture")
    passkeyd_firefox.navigate(rp.url())
    assert_registered(register(passkeyd_firefox, name), rp, name, ALGORITHMS["ES256"])
    [credential] = passkeyd_authenticator.get_credentials("localhost")
    assert base64url(credential.credential_id) == rp.verified[-1]["credentialId"]
    assert credential.user_name == name and credential.user_handle == name.encode()
    assert credential.is_resident_credential and credential.algorithm_name == "ES256"

    assert_signed_in(sign_in(passkeyd_firefox), rp, name)
    assert [outcome["verified"] for outcome in rp.verified[-2:]] == [True, True]
    assert passkeyd_authenticator.get_credential(credential.credential_id).sign_count == rp.verified[-1]["signCount"]


def run_pytest(folder: Path, *arguments: str, autoload: bool = True) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}
    environment["PYTHONPATH"] = PACKAGE
    if not autoload:
        environment["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        environment["ONLY_PASSKEYD_LOADED"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *arguments],
                          cwd=folder, env=environment, capture_output=True, text=True, timeout=300)


@pytest.fixture
def suite(tmp_path):
    """A folder of its own (its own rootdir, no conftest of this suite's) with one test that
    looks at what loading the plugin did."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "test_loaded.py").write_text(
        "import os\nimport sys\n\n"
        "def test_the_browser_plugin_is_loaded_without_playwright_or_selenium(request):\n"
        "    manager = request.config.pluginmanager\n"
        "    assert manager.get_plugin('passkeyd.pytest_browser') is not None\n"
        "    assert manager.get_plugin('passkeyd') is not None  # the entry point\n"
        "    if os.environ.get('ONLY_PASSKEYD_LOADED'):\n"
        "        assert 'playwright' not in sys.modules and 'selenium' not in sys.modules\n")
    return tmp_path


def test_the_browser_fixtures_are_listed_once_the_package_is_installed(suite):
    run = run_pytest(suite, "--fixtures")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    listed = {line.split(" ")[0] for line in run.stdout.splitlines()}
    assert set(BROWSER_FIXTURES) <= listed, run.stdout


@pytest.mark.parametrize("named", ["", "-p", "conftest"])
def test_loading_the_plugin_imports_neither_playwright_nor_selenium_and_naming_it_again_is_no_error(suite, named):
    # Only the package's entry point (`-p passkeyd`, by its name) with autoloading off: no other
    # installed plugin (pytest-playwright, say) can have imported Playwright, so the test in
    # there checks sys.modules.
    arguments = ["-p", "passkeyd"]
    if named == "-p":
        arguments += ["-p", "passkeyd.pytest_browser"]
    elif named == "conftest":
        (suite / "conftest.py").write_text('pytest_plugins = ["passkeyd.pytest_browser"]\n')
    run = run_pytest(suite, *arguments, autoload=False)
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
    # And with every installed plugin loaded, as a plain `pytest` does: loaded once, no error.
    run = run_pytest(suite, *arguments[2:])
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]
