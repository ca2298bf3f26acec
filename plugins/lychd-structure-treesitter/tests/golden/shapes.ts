// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
import type { Serializer } from "./serialize";
import * as geometry from "./geometry";

/** A point in the plane. */
export interface Point {
  readonly x: number;
  readonly y: number;
  /** Distance to another point. */
  distance(other: Point): number;
}

export type ShapeKind = "circle" | "square";

export enum Unit {
  Millimetre,
  Inch = 25,
}

/**
 * Base of every shape.
 */
export abstract class Shape<K extends ShapeKind = ShapeKind> implements Serializer<Shape> {
  protected constructor(public readonly kind: K, private unit: Unit = Unit.Millimetre) {}

  abstract area(): number;

  serialize(): string {
    return JSON.stringify({ kind: this.kind, area: this.area() });
  }
}

export class Circle extends Shape<"circle"> {
  constructor(private readonly radius: number) {
    super("circle");
  }

  area(): number {
    return Math.PI * this.radius ** 2;
  }
}

export function largest(shapes: readonly Shape[]): Shape | undefined {
  return [...shapes].sort((a, b) => b.area() - a.area())[0];
}

export const origin: Point = { x: 0, y: 0, distance: (o) => geometry.hypot(o.x, o.y) };

export namespace Registry {
  export const shapes = new Map<string, Shape>();
  export function register(name: string, shape: Shape): void {
    shapes.set(name, shape);
  }
}

declare global {
  interface Window { shapes: typeof Registry; }
}
