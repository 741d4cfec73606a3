"""The compiled part of auditor: an optional C extension (metadata is in pyproject.toml).

``auditor.inputs._payload_groups`` groups the lines of JSON Lines logs by payload before
Python sees them. ``optional=True``: where no C compiler or Python headers are found, the
build goes on without it and ``auditor.inputs.payload_groups`` uses its Python twin.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "auditor.inputs._payload_groups",
            sources=["auditor/inputs/_payload_groups.c"],
            optional=True,
        )
    ]
)
