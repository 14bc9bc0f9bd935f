import type { ReactNode } from 'react';

export interface Column {
  label: ReactNode;
  className?: string;
}

/**
 * A data table in a keyboard-scrollable region (phones scroll wide tables sideways): the region is named
 * `label`, the table has a caption (read, not shown) and column headers; the rows are the children.
 */
export function DataTable({
  label,
  caption,
  columns,
  className,
  children,
}: {
  label: string;
  caption?: ReactNode;
  columns: readonly (string | Column)[];
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table className={className ? `data-table ${className}` : 'data-table'}>
        <caption className="visually-hidden">{caption ?? label}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => {
              const { label: text, className: columnClass } =
                typeof column === 'string' ? { label: column, className: undefined } : column;
              return (
                <th key={index} scope="col" className={columnClass}>
                  {text}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
