"""Privacy: labels at egress, the Privacy Cut, and the reversible-cut vault."""
