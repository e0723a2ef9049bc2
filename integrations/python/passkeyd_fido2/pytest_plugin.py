"""The earlier name of `passkeyd.pytest_plugin`, for `-p passkeyd_fido2.pytest_plugin`."""

from passkeyd.pytest_plugin import *  # noqa: F401,F403
