"""The earlier name of the `passkeyd` package's python-fido2 transport, kept so that
`import passkeyd_fido2` goes on working: every name is `passkeyd`'s own."""

from passkeyd import *  # noqa: F401,F403
from passkeyd import __all__  # noqa: F401
from passkeyd import READ_TIMEOUT, _check_folder, _check_peer, daemon_binary  # noqa: F401
