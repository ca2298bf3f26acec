// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
import React, { useState } from "react";

/** Props of the panel. */
export interface PanelProps {
  title: string;
  collapsed?: boolean;
}

/** A collapsible panel. */
export function Panel({ title, collapsed = false }: PanelProps): JSX.Element {
  const [open, setOpen] = useState(!collapsed);
  return (
    <section>
      <h2 onClick={() => setOpen(!open)}>{title}</h2>
      {open && <div className="body" />}
    </section>
  );
}

export const Badge = (props: { label: string }) => <span className="badge">{props.label}</span>;

export default Panel;
