// What uses a thing about to be deleted, one kind of user: a title and each one a link to change
// it (a distribution list's or a group's delete dialog).
import { Link } from "wouter";
import "./uses.css";

export function Uses(props: { title: string; items: { id: number; name: string }[]; href: (id: number) => string }) {
  if (!props.items.length) return null;
  return (
    <div class="list-uses">
      <h3 class="list-uses-title">{props.title}</h3>
      <ul>
        {props.items.map((i) => (
          <li key={i.id}>
            <Link href={props.href(i.id)}>{i.name}</Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
