"""Package discovery, the one part of the packaging pyproject.toml cannot declare.

``nines_sim`` and every subpackage under it are found, not listed; the built-ins keep their top-level
``strategies/`` folder in the repository but install inside the package's namespace, as
``nines_sim.strategies`` (with any subpackage they grow): a top-level ``strategies`` would clash with other
projects and with a user's own ``strategies/`` folder on the import path.  Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

BUILTINS = "strategies"

packages = find_packages(include=["nines_sim", "nines_sim.*"])
packages += ["nines_sim." + name for name in find_packages(include=[BUILTINS, f"{BUILTINS}.*"])]

setup(packages=packages, package_dir={"nines_sim.strategies": BUILTINS})
