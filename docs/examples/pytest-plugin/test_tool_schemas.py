"""The catalog in this repository breaks no call the server has recorded."""


def test_the_catalog_change_breaks_no_recorded_call(tool_schema_audit):
    # The catalog as released, and as it is now; the calls come from pytest.ini.
    tool_schema_audit(["catalog/released.json"], new_schemas=["catalog/tools.json"])
