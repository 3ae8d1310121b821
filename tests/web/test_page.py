"""The try-it page is served at / with its static assets (no build step)."""

from __future__ import annotations

from support.api import MakeClient


async def test_page_and_assets_are_served(make_client: MakeClient) -> None:
    client = await make_client(offline=True)

    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    for asset in ("/static/app.css", "/static/app.js"):
        assert asset in page.text
        response = await client.get(asset)
        assert response.status_code == 200, asset
    assert (
        (await client.get("/static/app.js"))
        .headers["content-type"]
        .startswith(("text/javascript", "application/javascript"))
    )
    assert (await client.get("/static/nope.js")).status_code == 404
