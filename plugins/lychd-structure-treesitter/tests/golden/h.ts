import { VNode, Component } from './vdom'
import { createVNode } from './vdom/create'

// The hyperscript of the renderer.
export interface H {
  (tag: string, children?: any): VNode
  <P>(tag: Component<P>, props?: P, children?: any): VNode
}

export const h: H = function h(tag: any, props?: any, children?: any): VNode {
  if (typeof props === 'string') {
    return createVNode(tag, null, props)
  }
  return createVNode(tag, props, children)
} as any

export function cloneVNode(vnode: VNode): VNode {
  return { ...vnode }
}
