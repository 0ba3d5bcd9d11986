// Agent text rendered from the parsed blocks (model/markdown.ts) as React elements: never as HTML.
import { memo } from 'react';
import { type Inline, parseMarkdown } from '../model/markdown.js';

function Inlines({ nodes }: { nodes: Inline[] }) {
  return (
    <>
      {nodes.map((node, index) => {
        const key = `${index}:${node.type}`;
        switch (node.type) {
          case 'text':
            return <span key={key}>{node.text}</span>;
          case 'code':
            return <code key={key}>{node.text}</code>;
          case 'strong':
            return (
              <strong key={key}>
                <Inlines nodes={node.children} />
              </strong>
            );
          case 'em':
            return (
              <em key={key}>
                <Inlines nodes={node.children} />
              </em>
            );
          default:
            return null;
        }
      })}
    </>
  );
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = parseMarkdown(text);
  return (
    <>
      {blocks.map((block, index) => {
        const key = `${index}:${block.type}`;
        switch (block.type) {
          case 'code':
            return (
              <pre key={key}>
                <code>{block.text}</code>
              </pre>
            );
          case 'heading': {
            const Tag = `h${Math.min(4, block.level + 1)}` as 'h2' | 'h3' | 'h4';
            return (
              <Tag key={key}>
                <Inlines nodes={block.children} />
              </Tag>
            );
          }
          case 'list': {
            const items = block.items.map((item, itemIndex) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: list items have no identity beyond their place
              <li key={itemIndex}>
                <Inlines nodes={item} />
              </li>
            ));
            return block.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
          }
          case 'quote':
            return (
              <blockquote key={key}>
                <Inlines nodes={block.children} />
              </blockquote>
            );
          case 'paragraph':
            return (
              <p key={key}>
                <Inlines nodes={block.children} />
              </p>
            );
          default:
            return null;
        }
      })}
    </>
  );
});
