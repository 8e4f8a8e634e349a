"""memory/links.py: the [[links]] graph around a file."""

from __future__ import annotations

from memory import links


def test_fenced_links_are_code_and_depth_follows_both_ways() -> None:
    tree = {
        "a.md": b"# A\n\n- see [[b]] and [[a]]\n\n```\n[[not-a-link]]\n```\n",
        "b.md": b"# B\n\n- see [[c|the c file]]\n",
        "c.md": b"# C\n",
        "d.md": b"# D\n\n- back to [[b#top]]\n",
        "notes.txt": b"[[a]]",
    }
    one = links.around(tree, "b.md")
    assert (one.links, one.backlinks) == (["c.md"], ["a.md", "d.md"])
    assert set(one.nodes) == {"a.md", "b.md", "c.md", "d.md"}
    assert links.around(tree, "a.md").links == ["b.md"]  # no self-link, no fenced one
    two = links.around(tree, "c.md", depth=2)
    assert set(two.nodes) == {"a.md", "b.md", "c.md", "d.md"}
    assert ("d.md", "b.md") in two.edges and not two.truncated


def test_a_hub_is_cut_at_max_nodes() -> None:
    hub = "".join(f"- [[t{i}]]\n" for i in range(links.MAX_NODES + 50))
    graph = links.around({"hub.md": hub.encode()}, "hub.md")
    assert len(graph.nodes) == links.MAX_NODES and graph.truncated
    assert not graph.nodes["t0.md"]  # a broken link: the target does not exist
