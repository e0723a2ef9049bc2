"""scripts/same-env gives every SwiftPM build the same environment whoever started it (make at any
level, pytest, a shell), since SwiftPM rebuilds part of the tree when any variable differs; and
it leaves alone what a build needs from the user's environment."""
import os
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAME_ENV = os.path.join(ROOT, "scripts", "same-env")
BASE = {"PATH": "/usr/bin:/bin", "HOME": "/home/someone", "LANG": "C.UTF-8", "https_proxy": "http://proxy:3128",
        "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt", "PASSKEYD_MACRO_PLUGIN": "/p/plugin"}


def environment(env: dict, cwd: str = ROOT) -> str:
    return subprocess.run([SAME_ENV, "env"], env=env, cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_callers_that_differ_only_in_tooling_variables_get_one_environment():
    shell = environment(BASE)
    # What a nested make, a pytest test and a `make install PREFIX=…` add or change.
    nested = environment({**BASE, "PATH": "/opt/swift/usr/bin:/usr/bin:/opt/swift/usr/bin:/bin", "MAKELEVEL": "2",
                          "MAKEFLAGS": "w -- PY=/v/python", "MFLAGS": "-w", "SHLVL": "4", "PWD": "/elsewhere",
                          "PYTEST_CURRENT_TEST": "test_install.py::test_x (call)", "PYTEST_VERSION": "8.3.0",
                          "PREFIX": "/tmp/p", "DESTDIR": "/tmp/stage", "CONFIG": "debug", "DIST_OUT": "/tmp/out",
                          "NICE": "19", "PASSKEYD_BIN": "/b/passkeyd", "LIBFIDO2_U2F": "/b/u2f", "PY": "/v/python",
                          "SWIFT": "swift", "RELEASE_MACRO_PLUGIN": "/p/plugin"}, cwd=os.path.join(ROOT, "Tests"))
    assert nested.replace("/opt/swift/usr/bin:", "") == shell
    # Passed in name order, whatever order they were exported in.
    assert environment(dict(reversed(list(BASE.items())))) == shell


def test_what_a_build_needs_from_the_user_stays():
    kept = dict(line.split("=", 1) for line in environment({**BASE, "PASSKEYD_FUZZ": "1"}).splitlines())
    for name in ("HOME", "LANG", "https_proxy", "SSL_CERT_FILE", "PASSKEYD_MACRO_PLUGIN", "PASSKEYD_FUZZ"):
        assert name in kept, name
    assert kept["PASSKEYD_MACRO_PLUGIN"] == "/p/plugin" and kept["PATH"] == "/usr/bin:/bin"


def test_path_keeps_its_order_without_repeats():
    env = environment({**BASE, "PATH": "/a:/usr/bin:/a:/bin:/usr/bin"})
    assert "PATH=/a:/usr/bin:/bin\n" in env
